"""lsfemu.cli"""
