"""tests/python/harness.py: what the op tests share.

check(part, name, fn) runs one check and prints its PASS or FAIL line as
python/PART/NAME (VERBOSE=1: the traceback too); RESULTS keeps every
outcome, for the exit status.  raises(exc, fn, text) fails unless fn
raises exc with text in its message.
"""
import os
import traceback

RESULTS = []


def check(part, name, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        RESULTS.append("FAIL")
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"FAIL python/{part}/{name}: {type(e).__name__}: {msg[:300]}", flush=True)
        if os.environ.get("VERBOSE"):
            traceback.print_exc()
    else:
        RESULTS.append("PASS")
        print(f"PASS python/{part}/{name}", flush=True)


def raises(exc, fn, text):
    try:
        fn()
    except exc as e:
        if text not in str(e):
            raise AssertionError(f"raised {type(e).__name__} without {text!r}: {e}")
        return
    raise AssertionError(f"no {exc.__name__} ({text!r})")
