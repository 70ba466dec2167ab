"""Holds a global key grab on the X display, as another app that owns a shortcut does: grabs
Ctrl+Alt+<key> on the root window (with and without Caps Lock and Num Lock), prints
"grabbed", and keeps it until killed. Usage: python3 grab-key.py k"""
import ctypes
import sys
import time

x = ctypes.cdll.LoadLibrary("libX11.so.6")
x.XOpenDisplay.restype = ctypes.c_void_p
x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
x.XDefaultRootWindow.restype = ctypes.c_ulong
x.XStringToKeysym.restype = ctypes.c_ulong
x.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
x.XKeysymToKeycode.restype = ctypes.c_ubyte
x.XGrabKey.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_int]
x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]

display = x.XOpenDisplay(None)
if not display:
    sys.exit("no X display")
root = x.XDefaultRootWindow(display)
keycode = x.XKeysymToKeycode(display, x.XStringToKeysym(sys.argv[1].encode()))
CONTROL, ALT, CAPS, NUM = 4, 8, 2, 16
for extra in (0, CAPS, NUM, CAPS | NUM):
    x.XGrabKey(display, keycode, CONTROL | ALT | extra, root, 1, 1, 1)
x.XSync(display, 0)
print("grabbed", flush=True)
while True:
    time.sleep(3600)
