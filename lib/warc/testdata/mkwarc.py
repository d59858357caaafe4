#!/usr/bin/env python3
"""Write the WARC fixtures of lib/warc from the HTML pages in pages/.

Usage: mkwarc.py OUTDIR

Writes OUTDIR/pages.warc (plain), OUTDIR/pages.warc.gz (one gzip member per
record, written by warcio) and OUTDIR/pages-whole.warc.gz (the plain file
gzipped as a single member). Record ids and dates are fixed so the output is
reproducible. Needs warcio (pip install warcio).
"""
import gzip
import io
import os
import sys
import zlib

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

HERE = os.path.dirname(os.path.abspath(__file__))
DATE = "2024-01-02T03:04:05Z"


def page(name):
    with open(os.path.join(HERE, "pages", name + ".html"), "rb") as f:
        return f.read()


def rid(n):
    return "<urn:uuid:00000000-0000-4000-8000-%012d>" % n


def chunked(data, size=128):
    out = b""
    for i in range(0, len(data), size):
        part = data[i:i + size]
        out += b"%x;ext=1\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


def gzip_fixed(data):
    return gzip.compress(data, mtime=0)


def headers(n, extra=None):
    h = {"WARC-Record-ID": rid(n), "WARC-Date": DATE}
    h.update(extra or {})
    return h


def response(w, n, uri, status, http, body, extra=None):
    sh = StatusAndHeaders(status, http, protocol="HTTP/1.1")
    w.write_record(w.create_warc_record(
        uri, "response", payload=io.BytesIO(body), length=len(body),
        warc_headers_dict=headers(n, extra), http_headers=sh))


def records(w):
    info = w.create_warcinfo_record(
        "pages.warc", {"software": "mkwarc.py (warcio)", "format": "WARC/1.0"})
    info.rec_headers.replace_header("WARC-Record-ID", rid(1))
    info.rec_headers.replace_header("WARC-Date", DATE)
    w.write_record(info)

    uri1 = "http://example.com/replace-brs"
    req = StatusAndHeaders("GET /replace-brs HTTP/1.1",
                           [("Host", "example.com")], is_http_request=True)
    w.write_record(w.create_warc_record(
        uri1, "request", payload=io.BytesIO(b""), length=0,
        warc_headers_dict=headers(2), http_headers=req))
    response(w, 3, uri1, "200 OK",
             [("Content-Type", "text/html; charset=utf-8")], page("replace-brs"))

    body = page("normalize-spaces")
    response(w, 4, "http://example.com/normalize-spaces", "200 OK",
             [("Content-Type", "text/html; charset=UTF-8"),
              ("Content-Encoding", "gzip"),
              ("Transfer-Encoding", "chunked")],
             chunked(gzip_fixed(body)))

    body = page("rtl-1")
    response(w, 5, "http://example.com/rtl-1", "200 OK",
             [("Content-Type", "application/xhtml+xml"),
              ("Content-Encoding", "deflate")],
             zlib.compress(body))

    response(w, 6, "http://example.com/missing-paragraphs", "200 OK",
             [("Content-Type", "text/html")], page("missing-paragraphs"),
             {"WARC-TREC-ID": "clueweb-0001"})

    response(w, 7, "http://example.com/missing", "404 Not Found",
             [("Content-Type", "text/html")], b"<html><body>not found</body></html>")
    response(w, 8, "http://example.com/style.css", "200 OK",
             [("Content-Type", "text/css")], b"body { margin: 0 }\n")

    meta = b"via: http://example.com/\n"
    w.write_record(w.create_warc_record(
        uri1, "metadata", payload=io.BytesIO(meta), length=len(meta),
        warc_content_type="application/warc-fields",
        warc_headers_dict=headers(9)))

    text = ("Lorem\n\nLorem ipsum\ndolor sit\n\namet, consectetur adipisicing "
            "elit.\n\nFoo\n").encode("utf-8")
    w.write_record(w.create_warc_record(
        uri1, "conversion", payload=io.BytesIO(text), length=len(text),
        warc_content_type="text/plain",
        warc_headers_dict=headers(10, {"WARC-Refers-To": rid(3)})))


def write(path, use_gzip):
    with open(path, "wb") as f:
        records(WARCWriter(f, gzip=use_gzip, warc_version="1.0"))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    write(os.path.join(out, "pages.warc"), False)
    write(os.path.join(out, "pages.warc.gz"), True)
    with open(os.path.join(out, "pages.warc"), "rb") as f:
        plain = f.read()
    with open(os.path.join(out, "pages-whole.warc.gz"), "wb") as f:
        f.write(gzip_fixed(plain))


if __name__ == "__main__":
    main()
