"""`flamegraph`: `perf script` text -> folded stacks -> flame graph SVG (self-contained: a small
folder and renderer, since no maintained PyPI package renders perf script output). Also gzips
large profiles: the Firefox Profiler opens `.perf.gz` directly."""
import gzip
import hashlib
import os
import re
from collections import Counter
from xml.sax.saxutils import escape

from ..common.errors import AnalysisError
from ..common.fileio import write_bytes_atomic, write_text_atomic

HEADER = re.compile(r"^(?P<comm>\S.*?)\s+(?P<pid>\d+)(?:/(?P<tid>\d+))?\s+(?:\[\d+\]\s+)?"
                    r"(?P<time>\d+\.\d+):\s+(?:(?P<period>\d+)\s+)?(?P<event>[^\s:]+(?::[^\s:]*)*):?")
FRAME = re.compile(r"^\s+(?P<addr>[0-9a-fA-F]+)\s+(?P<sym>.*?)\s+\((?P<dso>[^()]*(?:\([^()]*\))?[^()]*)\)\s*$")
OFFSET = re.compile(r"\+0x[0-9a-fA-F]+$")
GZIP_OVER_BYTES = 20 * 1024 * 1024


def open_text(path):
    if not os.path.exists(path):
        raise AnalysisError(f"{path}: profile not found")
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def frame_name(sym, dso):
    sym = OFFSET.sub("", sym.strip())
    if sym in ("", "[unknown]"):
        base = os.path.basename(dso) if dso and dso != "[unknown]" else ""
        sym = f"[{base}]" if base else "[unknown]"
    if dso == "[kernel.kallsyms]" or dso.startswith("[kernel"):
        sym += "_[k]"
    return sym


def fold(lines):
    """Counter of 'comm;root;...;leaf' -> samples."""
    stacks = Counter()
    comm, frames = None, []

    def flush():
        if comm is not None:
            stacks[";".join([comm] + list(reversed(frames)))] += 1

    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            flush()
            comm, frames = None, []
            continue
        if line.startswith("#"):
            continue
        if line[0] in " \t":
            m = FRAME.match(line)
            if m and comm is not None:
                frames.append(frame_name(m.group("sym"), m.group("dso")))
            continue
        m = HEADER.match(line)
        if m:
            flush()
            comm, frames = m.group("comm").replace(";", ":"), []
    flush()
    return stacks


def build_tree(stacks):
    root = {"name": "all", "value": 0, "children": {}}
    for stack, n in stacks.items():
        root["value"] += n
        node = root
        for name in stack.split(";"):
            node = node["children"].setdefault(name, {"name": name, "value": 0, "children": {}})
            node["value"] += n
    return root


def _color(name):
    h = int(hashlib.md5(name.encode()).hexdigest()[:6], 16)
    if name.endswith("_[k]"):
        return f"rgb({200 + h % 55},{100 + (h >> 8) % 60},{30 + (h >> 16) % 30})"
    return f"rgb({205 + h % 50},{(h >> 8) % 190},{(h >> 16) % 55})"


def render_svg(stacks, title, width=1200, frame_h=16, min_px=1.0):
    tree = build_tree(stacks)
    total = tree["value"]
    scale_guess = (width - 20) / total if total else 0
    depth = _depth(tree, total and min_px / scale_guess)  # only frames wide enough to be drawn
    pad_top, pad_bottom = 36, 10
    height = pad_top + depth * frame_h + pad_bottom
    out = [f'<?xml version="1.0" standalone="no"?>',
           f'<svg version="1.1" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'xmlns="http://www.w3.org/2000/svg" font-family="Verdana, sans-serif" font-size="11">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#f8f8f0"/>',
           f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="15">{escape(title)}</text>',
           f'<text x="10" y="{height - 1}" font-size="10" fill="#555">{total} samples; width = share of '
           f'samples, bottom = process, top = leaf function; hover for counts</text>']
    scale = (width - 20) / total if total else 0

    def draw(node, x, level):
        w = node["value"] * scale
        if w < min_px:
            return
        y = height - pad_bottom - (level + 1) * frame_h
        pct = 100.0 * node["value"] / total
        label = f"{node['name']} ({node['value']} samples, {pct:.2f}%)"
        out.append(f'<g><title>{escape(label)}</title><rect x="{x:.2f}" y="{y}" width="{w:.2f}" '
                   f'height="{frame_h - 1}" fill="{_color(node["name"])}" rx="2"/>')
        chars = int((w - 6) / 7)
        if chars >= 3:
            text = node["name"] if len(node["name"]) <= chars else node["name"][: chars - 2] + ".."
            out.append(f'<text x="{x + 3:.2f}" y="{y + frame_h - 4}">{escape(text)}</text>')
        out.append("</g>")
        cx = x
        for child in sorted(node["children"].values(), key=lambda c: c["name"]):
            draw(child, cx, level + 1)
            cx += child["value"] * scale

    if total:
        draw(tree, 10.0, 0)
    else:
        out.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle">no samples in the profile</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _depth(node, min_value=0):
    return 1 + max((_depth(c, min_value) for c in node["children"].values() if c["value"] >= min_value), default=0)


def gzip_if_large(path, limit=GZIP_OVER_BYTES):
    """Replaces a profile larger than limit with PATH.gz; returns the path that now holds it."""
    if path.endswith(".gz") or os.path.getsize(path) <= limit:
        return path
    with open(path, "rb") as f:
        write_bytes_atomic(path + ".gz", gzip.compress(f.read(), compresslevel=6))
    os.unlink(path)
    return path + ".gz"


def run(profile, out_svg, title=None, gzip_over=GZIP_OVER_BYTES):
    with open_text(profile) as f:
        stacks = fold(f)
    if not stacks:
        raise AnalysisError(f"{profile}: no samples found (expected `perf script` text output)")
    title = title or f"Flame graph: {os.path.basename(profile)}"
    write_text_atomic(out_svg, render_svg(stacks, title))
    kept = gzip_if_large(profile, gzip_over)
    return stacks, kept
