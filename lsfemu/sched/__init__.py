"""lsfemu.sched"""
