"""lsfemu.daemon"""
