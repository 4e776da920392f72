"""The Python peers of `npm run bench -- --peers`: PyMuPDF and pypdf fill (and flatten where the library
can) one form in this long-lived process, as a Python service would, and time themselves.

Reads one JSON job per line on stdin, writes one JSON answer per line on stdout:
  job:    {"peer": "pymupdf"|"pypdf", "template": path, "out": path, "values": {name: {"kind", ...}},
           "flatten": bool, "iterations": n, "warmup": n, "min_seconds": s, "max_seconds": s,
           "pymupdf_flatten": "bake"|"convert"}
  answer: {"ok": true, "samples_ms": [...], "cpu_ms": per-iteration CPU, "method": "...", "version": "..."}
          or {"ok": false, "error": "..."}
Run with Debian's python3 (python3-fitz, python3-pypdf); a missing library answers ok=false.
"""
import io
import json
import os
import re
import sys
import time
import traceback


def on_state(w):
    """The widget's on state: Widget.on_state() in newer PyMuPDF, its appearance states in 1.21."""
    if hasattr(w, "on_state"):
        return w.on_state()
    states = w.button_states() or {}
    for s in (states.get("normal") or []) + (states.get("down") or []):
        if s != "Off":
            return s
    return "Yes"


def pin_swig_runtime(fitz):
    """Keeps PyMuPDF 1.21's SWIG runtime alive for the life of this process.

    Debian 12's python3-fitz 1.21.1 is built with SWIG 4.1, whose objects created as owned hold a reference
    to the runtime's capsule (Swig_Capsule_global) and give it back when freed. PyMuPDF 1.21 sets
    `thisown = True` by hand on the annotations it loads (Page.load_widget, load_annot, ...), so each one
    gives back a reference it never took: after a handful of widgets the capsule is freed, SWIG forgets
    every type's Python class, and the next widget comes back as a bare SwigPyObject ("'SwigPyObject'
    object has no attribute 'thisown'"; pymupdf/PyMuPDF#2293, #2328). The capsule lives as long as the
    process anyway: its reference count is raised far beyond what any run can give back, and topped up
    before each job. CPython only (ob_refcnt is the object's first word).
    """
    import ctypes

    runtime = sys.modules.get("swig_runtime_data4")
    if runtime is None:  # another build (PyMuPDF >= 1.22 has other bindings): nothing to keep alive
        return
    capsule = runtime.type_pointer_capsule
    refcnt = ctypes.c_ssize_t.from_address(id(capsule))
    if refcnt.value < 1 << 40:
        refcnt.value += 1 << 41


def pdf_numbers(text):
    return [float(x) for x in text.strip("[]").split()]


def widget_appearance(doc, xref):
    """The xref of a widget's normal appearance stream (the /AS state's for a button), or 0."""
    kind, value = doc.xref_get_key(xref, "AP/N")
    if kind == "xref":
        return int(value.split()[0])
    if kind != "dict":
        return 0
    state = doc.xref_get_key(xref, "AS")[1].lstrip("/")
    kind, value = doc.xref_get_key(xref, "AP/N/" + state) if state and state != "null" else ("null", "")
    return int(value.split()[0]) if kind == "xref" else 0


def page_resources(doc, page):
    """The page's own /Resources, copied down from a /Pages ancestor when it inherits them."""
    if doc.xref_get_key(page.xref, "Resources")[0] != "null":
        return
    node = page.xref
    while True:
        kind, parent = doc.xref_get_key(node, "Parent")
        if kind != "xref":
            doc.xref_set_key(page.xref, "Resources", "<<>>")
            return
        node = int(parent.split()[0])
        kind, value = doc.xref_get_key(node, "Resources")
        if kind != "null":
            doc.xref_set_key(page.xref, "Resources", value)
            return


def add_xobject(doc, page_xref, name, xref):
    """/Resources/XObject/name = xref on the page, where either dictionary may be an indirect object
    (xref_set_key takes no path through one)."""
    holder, path = page_xref, "Resources"
    kind, value = doc.xref_get_key(holder, path)
    if kind == "xref":
        holder, path = int(value.split()[0]), ""
    kind, value = doc.xref_get_key(holder, path + "/XObject" if path else "XObject")
    if kind == "xref":
        doc.xref_set_key(int(value.split()[0]), name, "%d 0 R" % xref)
    else:
        doc.xref_set_key(holder, (path + "/" if path else "") + "XObject/" + name, "%d 0 R" % xref)


def bake_widgets(doc, page, widget_xrefs):
    """Flattens a page's widgets as MuPDF's pdf_bake_document (PyMuPDF >= 1.22's Document.bake()) does:
    each visible widget's appearance stream drawn into the page as a form XObject where the widget was
    (PDF 32000 12.5.5: its BBox, transformed by its Matrix, mapped onto the widget's Rect), then the
    widgets taken off the page."""
    ops = []
    for xref in widget_xrefs:
        flags = doc.xref_get_key(xref, "F")
        if flags[0] == "int" and int(flags[1]) & (2 | 32):  # Hidden, NoView
            continue
        ap = widget_appearance(doc, xref)
        if not ap:
            continue
        x0, y0, x1, y1 = pdf_numbers(doc.xref_get_key(xref, "Rect")[1])
        x0, x1, y0, y1 = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
        b = pdf_numbers(doc.xref_get_key(ap, "BBox")[1])
        kind, m = doc.xref_get_key(ap, "Matrix")
        a, bb, c, d, e, f = pdf_numbers(m) if kind == "array" else (1, 0, 0, 1, 0, 0)
        corners = [(x * a + y * c + e, x * bb + y * d + f) for x in (b[0], b[2]) for y in (b[1], b[3])]
        bx0, by0 = min(p[0] for p in corners), min(p[1] for p in corners)
        bx1, by1 = max(p[0] for p in corners), max(p[1] for p in corners)
        sx = (x1 - x0) / (bx1 - bx0) if bx1 != bx0 else 0
        sy = (y1 - y0) / (by1 - by0) if by1 != by0 else 0
        name = "FcBake%d" % ap
        add_xobject(doc, page.xref, name, ap)
        ops.append("q %g 0 0 %g %g %g cm /%s Do Q" % (sx, sy, x0 - bx0 * sx, y0 - by0 * sy, name))
    kind, annots = doc.xref_get_key(page.xref, "Annots")
    if kind == "xref":  # an indirect array: the page gets its own, without the widgets
        annots = doc.xref_object(int(annots.split()[0]), compressed=True)
    refs = re.findall(r"(\d+) 0 R", annots)
    if not re.fullmatch(r"\[\s*(\d+ \d+ R\s*)*\]", annots.strip()):
        raise ValueError("page %d: /Annots holds more than references" % page.number)
    gone = set(widget_xrefs)
    keep = ["%s 0 R" % r for r in refs if int(r) not in gone]
    doc.xref_set_key(page.xref, "Annots", "[%s]" % " ".join(keep) if keep else "null")
    return ops


def pymupdf_fill(fitz, template, values, flatten, method):
    pin_swig_runtime(fitz)
    doc = fitz.open(stream=template, filetype="pdf")
    for page in doc:
        widget_xrefs = []
        for w in page.widgets():
            widget_xrefs.append(w.xref)
            v = values.get(w.field_name)
            if v is None:
                continue
            kind = v["kind"]
            if kind == "text":
                w.field_value = v["text"]
            elif kind == "check":
                # PyMuPDF 1.21 turns a button on for field_value True only (a state name turns it off), and
                # off for the whole field: a check box (or radio widget) whose own on state is not the one
                # sent is left alone, its sibling being turned on
                state = v.get("state")
                if state and state != on_state(w):
                    continue
                w.field_value = bool(v["checked"])
            elif kind == "choice":
                w.field_value = v["value"]
            elif kind == "choices":
                w.field_value = v["values"][0] if v["values"] else ""
            else:
                continue
            w.update()
        if flatten and method == "bake" and widget_xrefs and not hasattr(doc, "bake"):
            page_resources(doc, page)
            ops = bake_widgets(doc, page, widget_xrefs)
            if ops:
                page.wrap_contents()  # the page's own graphics state does not leak onto the appearances
                fitz.TOOLS._insert_contents(page, ("\n" + "\n".join(ops) + "\n").encode(), True)
    if not flatten:
        data = doc.tobytes()
        label = "widgets + tobytes()"
    elif method == "bake" and hasattr(doc, "bake"):
        doc.bake(annots=False, widgets=True)
        data = doc.tobytes(garbage=1)
        label = "widgets, bake(annots=False), tobytes(garbage=1)"
    elif method == "bake":
        # no fields left: the AcroForm goes, and garbage=1 drops the field objects nothing points to
        doc.xref_set_key(doc.pdf_catalog(), "AcroForm", "null")
        data = doc.tobytes(garbage=1)
        label = "widgets, appearances baked into the pages by hand (bake() of PyMuPDF >= 1.22), tobytes(garbage=1)"
    else:
        # every page re-drawn through MuPDF's PDF writer: no fields, but fonts and content re-encoded
        data = doc.convert_to_pdf()
        label = "widgets, convert_to_pdf()"
    doc.close()
    return data, label


def pypdf_fill(pypdf, template, values, flatten):
    reader = pypdf.PdfReader(io.BytesIO(template))
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
    # the template's bytes in memory, as ours has them: each fill opens (parses) them afresh
    with open(job["template"], "rb") as f:
        template = f.read()
    if peer == "pymupdf":
        import fitz

        flatten_by = job.get("pymupdf_flatten", "bake")
        fill = lambda: pymupdf_fill(fitz, template, job["values"], job["flatten"], flatten_by)
        version = "PyMuPDF %s" % fitz.VersionBind
    elif peer == "pypdf":
        import pypdf

        fill = lambda: pypdf_fill(pypdf, template, job["values"], job["flatten"])
        version = "pypdf %s" % pypdf.__version__
    else:
        raise ValueError("unknown peer %r" % peer)
    data, method = fill()
    with open(job["out"], "wb") as f:
        f.write(data)
    # the timed fills do what the written one did (a check that the job's method stays the same)
    for _ in range(job["warmup"]):
        fill()
    samples = []
    cpu0 = time.process_time()
    start = time.perf_counter()
    deadline = start + job["max_seconds"]
    # at least `iterations` fills and at least min_seconds of them (the CPU per fill of a 1 ms form is
    # read over a steady stretch, as the JavaScript peers' is), at most max_seconds after the fifth
    while True:
        t = time.perf_counter()
        fill()
        samples.append((t2 := time.perf_counter()) - t)
        if len(samples) >= job["iterations"] and t2 - start >= job.get("min_seconds", 0):
            break
        if len(samples) >= 5 and t2 > deadline:
            break
    samples = [x * 1000 for x in samples]
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
            where = traceback.extract_tb(e.__traceback__)[-1]
            answer = {"ok": False, "error": "%s: %s (in %s)" % (type(e).__name__, str(e)[:300], where.name)}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
