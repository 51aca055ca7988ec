#!/usr/bin/python3
"""Draws the web client's app icons, clients/web/icon-192.png and icon-512.png, from the shape
and colours of clients/web/favicon.svg (a green field, a city of curved wall along the top, a
road across): the PNGs the web app manifest needs for installation (Chromium wants a 192 and a
512). Run once by hand when the favicon changes (/usr/bin/python3 tests/gen/make_icons.py); the
PNGs are committed assets, not made by the build. Standard library only (zlib): RGB, 8 bits,
4x4 samples a pixel so the wall's curve is smooth.
"""
import os
import struct
import zlib

FIELD = (0x6A, 0x9A, 0x3A)
CITY = (0xC9, 0xA5, 0x6B)
ROAD = (0xF5, 0xF0, 0xE1)


def colour(u, v):
    """The favicon's colour at (u, v) in its 16x16 viewBox."""
    if 10 <= v < 12:
        return ROAD  # M0,11 H16 with stroke-width 2
    # M0,0 H16 Q8,8 0,0: the curve from (16,0) through control (8,8) to (0,0) is y = x(16-x)/16
    if v < u * (16 - u) / 16:
        return CITY
    return FIELD


def image(size, samples=4):
    rows = []
    scale = 16 / size
    for y in range(size):
        row = bytearray([0])  # filter: none
        for x in range(size):
            acc = [0, 0, 0]
            for sy in range(samples):
                for sx in range(samples):
                    c = colour((x + (sx + 0.5) / samples) * scale, (y + (sy + 0.5) / samples) * scale)
                    for i in range(3):
                        acc[i] += c[i]
            row += bytes(round(a / samples / samples) for a in acc)
        rows.append(bytes(row))
    return b"".join(rows)


def png(size):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(image(size), 9))
            + chunk(b"IEND", b""))


if __name__ == "__main__":
    web = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "web")
    for size in (192, 512):
        with open(os.path.join(web, f"icon-{size}.png"), "wb") as f:
            f.write(png(size))
