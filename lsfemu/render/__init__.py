"""lsfemu.render"""
