"""The Python peers of `npm run bench -- --peers`: PyMuPDF and pypdf fill (and flatten where the library
can) one form in this long-lived process, as a Python service would, and time themselves.

Reads one JSON job per line on stdin, writes one JSON answer per line on stdout:
  job:    {"peer": "pymupdf"|"pypdf", "template": path, "out": path, "values": {name: {"kind", ...}},
           "flatten": bool, "iterations": n, "warmup": n, "max_seconds": s}
  answer: {"ok": true, "samples_ms": [...], "cpu_ms": per-iteration CPU, "method": "...", "version": "..."}
          or {"ok": false, "error": "..."}
Run with Debian's python3 (python3-fitz, python3-pypdf); a missing library answers ok=false.
"""
import io
import json
import os
import sys
import time


def on_state(w):
    """The widget's on state: Widget.on_state() in newer PyMuPDF, its appearance states in 1.21."""
    if hasattr(w, "on_state"):
        return w.on_state()
    states = w.button_states() or {}
    for s in (states.get("normal") or []) + (states.get("down") or []):
        if s != "Off":
            return s
    return "Yes"


def pymupdf_fill(fitz, template, values, flatten):
    doc = fitz.open(template)
    for page in doc:
        for w in page.widgets():
            v = values.get(w.field_name)
            if v is None:
                continue
            kind = v["kind"]
            if kind == "text":
                w.field_value = v["text"]
            elif kind == "check":
                # a check box (or one radio widget) is on when its own on state is the one sent
                on = on_state(w)
                if v.get("state"):
                    w.field_value = on if v["state"] == on else "Off"
                else:
                    w.field_value = on if v["checked"] else "Off"
            elif kind == "choice":
                w.field_value = v["value"]
            elif kind == "choices":
                w.field_value = v["values"][0] if v["values"] else ""
            else:
                continue
            w.update()
    if flatten:
        # PyMuPDF 1.21 has no Document.bake(); convert_to_pdf() is its way to a PDF without fields
        if hasattr(doc, "bake"):
            doc.bake()
            data = doc.tobytes(garbage=3, deflate=True)
            method = "bake()"
        else:
            data = doc.convert_to_pdf()
            method = "convert_to_pdf()"
    else:
        data = doc.tobytes()
        method = "widgets + tobytes()"
    doc.close()
    return data, method


def pypdf_fill(pypdf, template, values, flatten):
    reader = pypdf.PdfReader(template)
    writer = pypdf.PdfWriter()
    # the whole document, AcroForm included, as pypdf's own form-filling recipe does
    writer.clone_reader_document_root(reader)
    flat = {}
    for name, v in values.items():
        kind = v["kind"]
        if kind == "text":
            flat[name] = v["text"]
        elif kind == "check":
            flat[name] = "/" + v["state"] if v.get("state") else ("/Yes" if v["checked"] else "/Off")
        elif kind == "choice":
            flat[name] = v["value"]
        elif kind == "choices" and v["values"]:
            flat[name] = v["values"][0]
    for page in writer.pages:
        # pypdf matches the terminal name (/T) of each widget on the page
        short = {}
        for name, value in flat.items():
            short[name.split(".")[-1]] = value
        writer.update_page_form_field_values(page, short)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue(), "update_page_form_field_values (no flatten in pypdf %s)" % pypdf.__version__


def run_job(job):
    peer = job["peer"]
    if peer == "pymupdf":
        import fitz

        fill = lambda: pymupdf_fill(fitz, job["template"], job["values"], job["flatten"])
        version = "PyMuPDF %s" % fitz.VersionBind
    elif peer == "pypdf":
        import pypdf

        fill = lambda: pypdf_fill(pypdf, job["template"], job["values"], job["flatten"])
        version = "pypdf %s" % pypdf.__version__
    else:
        raise ValueError("unknown peer %r" % peer)
    data, method = fill()
    with open(job["out"], "wb") as f:
        f.write(data)
    for _ in range(job["warmup"]):
        fill()
    samples = []
    cpu0 = time.process_time()
    deadline = time.perf_counter() + job["max_seconds"]
    for i in range(job["iterations"]):
        t = time.perf_counter()
        fill()
        samples.append((time.perf_counter() - t) * 1000)
        if i >= 4 and time.perf_counter() > deadline:
            break
    cpu_ms = (time.process_time() - cpu0) * 1000 / len(samples)
    return {"ok": True, "samples_ms": samples, "cpu_ms": cpu_ms, "method": method, "version": version}


def main():
    # MuPDF's C code and SWIG print to file descriptor 1: answers go to a copy of it, and 1 to stderr
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer = run_job(json.loads(line))
        except Exception as e:  # one form a peer cannot fill is a row, not the end of the run
            answer = {"ok": False, "error": "%s: %s" % (type(e).__name__, str(e)[:300])}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
