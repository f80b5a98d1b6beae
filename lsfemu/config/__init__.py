"""lsfemu.config"""
