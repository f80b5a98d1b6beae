"""lsfemu.store"""
