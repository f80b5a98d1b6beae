"""lsfemu.events"""
