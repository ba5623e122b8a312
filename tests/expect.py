"""The check scripts' assertions: expect() prints and counts each failure
and lets the script go on, so that one run names every broken thing;
report_and_exit() prints the verdict and exits 1 when anything failed."""
import sys

failures = 0


def expect(cond, what):
    global failures
    if not cond:
        failures += 1
        print(f"FAIL: {what}")


def report_and_exit(name, ok_line="ok"):
    print(f"{name}: " + (ok_line if failures == 0 else f"{failures} failures"))
    sys.exit(1 if failures else 0)
