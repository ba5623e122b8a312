#!/usr/bin/env python3
"""Generates LLVM libomp's __kmpc_atomic_* entry points for libmuster-omp.

    python3 scripts/gen_kmp_atomics.py --c OUT.c --names OUT.txt [--test OUT_TEST.c]

Intel-compiled (and some clang-compiled) code calls these for `#pragma omp
atomic` it does not inline.  Every name is derived from the tables below
(type suffix, C type, operations, forms) in libomp's spelling; the set equals
what /usr/lib/llvm-14/lib/libomp.so.5 exports (340 names):

  --c      the C source of all of them, each __attribute__((visibility
           ("default"))), standalone (no project headers), warning-free under
           gcc -std=c11 -Wall -Wextra -Wshadow -Wconversion -Wsign-conversion
           -Wpedantic, for x86-64 and AArch64 alike.
  --names  the exported names, one a line, sorted by code point (LC_ALL=C).
  --test   a self-checking program (exit 0 when all pass, else a message and
           1 at the first failure) that links against the library: every
           function once against the plain C expression (capture forms with
           flag 1 and 0, _rev with reversed operands), then 7 pthreads x 20000
           `add`s with random delays on one representative of each size class
           and path, checked for an exact total.  Link with -lpthread.  It
           passes ident NULL and gtid 0 (from plain pthreads too): fine for
           muster, which ignores both; libomp's locks need the real gtid.

Conventions (libomp's, checked against its kmp_atomic.h):
  void T_op(ident_t *id_ref, int gtid, T *lhs, R rhs)            x = x op rhs
  T    T_op_cpt(ident_t *, int, T *lhs, R rhs, int flag)   flag!=0: new, else old
  _rev / _cpt_rev: x = rhs op x.  R is T, or float8 / cmplx8 for the mixed
  forms (fixedN_mul_float8, float4_add_float8, cmplx4_add_cmplx8 ...).
  T    T_rd(ident_t *, int, T *loc);  void T_wr(..., T *lhs, T rhs);
  T    T_swp(..., T *lhs, T rhs) returns the old value.
  cmplx4 returns through an out pointer: cmplx4_op_cpt(..., lhs, rhs,
  kmp_cmplx32 *out, int flag) and cmplx4_swp(..., lhs, rhs, kmp_cmplx32 *out).
  OpenMP 5.1 compare: _Bool bool_N_cas(loc, gtid, x, e, d) {r = x == e; if (r)
  x = d;}; val_N_cas returns the old x; bool_N_cas_cpt(..., pv) stores the old x
  in *pv only when the comparison fails; val_N_cas_cpt stores the final x in *pv
  and returns the old one.  __kmpc_atomic_N(id, gtid, lhs, rhs, f) calls
  f(out, lhs_value, rhs) to compute the new value; __kmpc_atomic_start/end
  bracket atomics the compiler cannot express.  min/max replace x with rhs
  when x > rhs / x < rhs; andl/orl are && / ||; eqv is ~(x ^ rhs), neqv xor.
  fixedN is signed, fixedNu unsigned: fixed1 is `signed char` where libomp
  writes `char` (the same ABI and signedness on x86-64; on AArch64, where char
  is unsigned, fixed1 stays signed, like Fortran's integer(1)).  float10 is long double,
  cmplx10 long double _Complex (16 and 32 bytes on x86-64 and AArch64 alike).

How: a type of 1, 2, 4 or 8 bytes (fixed*, float4, float8, cmplx4) is updated
lock-free: integer add/sub/andb/orb/xor/neqv by __atomic_fetch_*, the rest by a
compare-and-swap loop on the same-size unsigned integer (memcpy to and from
the value type); seq_cst throughout, but for the relaxed load that starts a
loop.  An address not aligned to the size (cmplx4 needs only 4) takes the lock
instead, as does every bigger type (float10, cmplx8, cmplx10, the generic
10 to 32 byte forms): one process-wide spin lock, the one __kmpc_atomic_start/end
take, so such an update also excludes a start/end section.  Integer add, sub,
mul and shl are computed unsigned, so they wrap instead of overflowing.

Left out: none of libomp.so.5's names.  Its float16/cmplx16 (_Quad) and `_fp`
(rhs _Quad) forms exist only where libomp is built with KMP_HAVE_QUAD, which
the LLVM 14 build here is not (clang has no _Quad), so they are not in the set.
"""
import argparse
import sys

# ---------------------------------------------------------------- the tables


class Ty:
    """A libomp type suffix: its C type, size class, kind and, for integers,
    the unsigned type the wrapping arithmetic is done in."""

    def __init__(self, suffix, c, size, kind, wrap=None):
        self.suffix = suffix
        self.c = c
        self.size = size  # bytes when lock-free, else None (the lock path)
        self.kind = kind  # sint, uint, real, cmplx
        self.wrap = wrap

    @property
    def lockfree(self):
        return self.size is not None

    @property
    def bits(self):
        return "uint%d_t" % (self.size * 8)

    @property
    def integer(self):
        return self.kind in ("sint", "uint")


TYPES = {t.suffix: t for t in [
    Ty("fixed1", "signed char", 1, "sint", "unsigned int"),
    Ty("fixed1u", "unsigned char", 1, "uint", "unsigned int"),
    Ty("fixed2", "short", 2, "sint", "unsigned int"),
    Ty("fixed2u", "unsigned short", 2, "uint", "unsigned int"),
    Ty("fixed4", "int32_t", 4, "sint", "uint32_t"),
    Ty("fixed4u", "uint32_t", 4, "uint", "uint32_t"),
    Ty("fixed8", "int64_t", 8, "sint", "uint64_t"),
    Ty("fixed8u", "uint64_t", 8, "uint", "uint64_t"),
    Ty("float4", "float", 4, "real"),
    Ty("float8", "double", 8, "real"),
    Ty("float10", "long double", None, "real"),
    Ty("cmplx4", "float _Complex", 8, "cmplx"),
    Ty("cmplx8", "double _Complex", None, "cmplx"),
    Ty("cmplx10", "long double _Complex", None, "cmplx"),
]}

FIXED = ["fixed1", "fixed2", "fixed4", "fixed8"]
FIXEDU = ["fixed1u", "fixed2u", "fixed4u", "fixed8u"]
FLOATS = ["float4", "float8", "float10"]
CMPLX = ["cmplx4", "cmplx8", "cmplx10"]

# (type suffixes, operations, forms): every combination is one entry point.
UPDATES = [
    (FIXED, "add sub mul div andb orb xor shl shr andl orl min max eqv neqv", ["", "_cpt"]),
    (FIXED, "sub div shl shr", ["_rev", "_cpt_rev"]),
    (FIXEDU, "div shr", ["", "_cpt", "_rev", "_cpt_rev"]),
    (FLOATS, "add sub mul div min max", ["", "_cpt"]),
    (FLOATS, "sub div", ["_rev", "_cpt_rev"]),
    (CMPLX, "add sub mul div", ["", "_cpt"]),
    (CMPLX, "sub div", ["_rev", "_cpt_rev"]),
]
# (type suffixes, operations, rhs type): T_op_R, update only.
MIXED = [
    (FIXED, "mul div", "float8"),
    (["float4"], "add sub mul div", "float8"),
    (["cmplx4"], "add sub mul div", "cmplx8"),
]
ACCESS = (FIXED + FLOATS + CMPLX, ["rd", "wr", "swp"])
CAS_SIZES = [(1, "fixed1"), (2, "fixed2"), (4, "fixed4"), (8, "fixed8")]
GENERIC_SIZES = [1, 2, 4, 8, 10, 16, 20, 32]

SYM = {"add": "+", "sub": "-", "mul": "*", "div": "/", "andb": "&", "orb": "|",
       "xor": "^", "neqv": "^", "shl": "<<", "shr": ">>", "andl": "&&", "orl": "||"}
FETCH = {"add": "add", "sub": "sub", "andb": "and", "orb": "or", "xor": "xor", "neqv": "xor"}

EXPORT = "MUSTER_KMP_ATOMIC_EXPORT"
RELAXED_LOAD = "/* relaxed: only the CAS publishes; a stale value makes it fail and retry */"
SEQ = "__ATOMIC_SEQ_CST"


class Fn:
    def __init__(self, name, form, t=None, r=None, op=None, rev=False, size=None):
        self.name = name
        self.form = form  # update cpt rd wr swp bool_cas val_cas bool_cas_cpt val_cas_cpt generic start end
        self.t = t
        self.r = r if r is not None else t
        self.op = op
        self.rev = rev
        self.size = size

    @property
    def outptr(self):
        """cmplx4's capture and swap return through `kmp_cmplx32 *out`."""
        return self.t is not None and self.t.suffix == "cmplx4" and self.form in ("cpt", "swp")


def entries():
    fns = []
    for types, ops, forms in UPDATES:
        for ts in types:
            for op in ops.split():
                for form in forms:
                    fns.append(Fn("__kmpc_atomic_%s_%s%s" % (ts, op, form),
                                  "cpt" if "_cpt" in form else "update", TYPES[ts], None, op, "_rev" in form))
    for types, ops, rs in MIXED:
        for ts in types:
            for op in ops.split():
                fns.append(Fn("__kmpc_atomic_%s_%s_%s" % (ts, op, rs), "update", TYPES[ts], TYPES[rs], op))
    for ts in ACCESS[0]:
        for form in ACCESS[1]:
            fns.append(Fn("__kmpc_atomic_%s_%s" % (ts, form), form, TYPES[ts]))
    for n, ts in CAS_SIZES:
        for kind in ("bool", "val"):
            for cpt in ("", "_cpt"):
                fns.append(Fn("__kmpc_atomic_%s_%d_cas%s" % (kind, n, cpt), "%s_cas%s" % (kind, cpt), TYPES[ts]))
    for n in GENERIC_SIZES:
        fns.append(Fn("__kmpc_atomic_%d" % n, "generic", size=n))
    fns.append(Fn("__kmpc_atomic_start", "start"))
    fns.append(Fn("__kmpc_atomic_end", "end"))
    names = [f.name for f in fns]
    assert len(names) == len(set(names)), "a name is generated twice"
    return fns


# ---------------------------------------------------------------- prototypes


def proto(f):
    t = f.t
    if f.form in ("start", "end"):
        return "void %s(void)" % f.name
    if f.form == "generic":
        return ("void %s(ident_t *id_ref, int gtid, void *lhs, void *rhs, void (*f)(void *, void *, void *))"
                % f.name)
    if f.form.endswith("_cas") or f.form.endswith("_cas_cpt"):
        ret = "_Bool" if f.form.startswith("bool") else t.c
        pv = ", %s *pv" % t.c if f.form.endswith("_cpt") else ""
        return "%s %s(ident_t *loc, int gtid, %s *x, %s e, %s d%s)" % (ret, f.name, t.c, t.c, t.c, pv)
    if f.form == "rd":
        return "%s %s(ident_t *id_ref, int gtid, %s *loc)" % (t.c, f.name, t.c)
    if f.form == "wr":
        return "void %s(ident_t *id_ref, int gtid, %s *lhs, %s rhs)" % (f.name, t.c, t.c)
    if f.form == "swp":
        if f.outptr:
            return "void %s(ident_t *id_ref, int gtid, %s *lhs, %s rhs, %s *out)" % (f.name, t.c, t.c, t.c)
        return "%s %s(ident_t *id_ref, int gtid, %s *lhs, %s rhs)" % (t.c, f.name, t.c, t.c)
    if f.form == "update":
        return "void %s(ident_t *id_ref, int gtid, %s *lhs, %s rhs)" % (f.name, t.c, f.r.c)
    if f.form == "cpt":
        if f.outptr:
            return ("void %s(ident_t *id_ref, int gtid, %s *lhs, %s rhs, %s *out, int flag)"
                    % (f.name, t.c, f.r.c, t.c))
        return "%s %s(ident_t *id_ref, int gtid, %s *lhs, %s rhs, int flag)" % (t.c, f.name, t.c, f.r.c)
    raise AssertionError(f.form)


# ---------------------------------------------------------------- the library


def op_expr(op, t, r, x, y):
    """C for `x op y` converted to t (x, y: operands of type t or r)."""
    T = t.c
    same = r is t
    w = t.c if same else r.c  # the type the operation is done in
    if op in ("add", "sub", "mul") and t.integer and same:
        return "(%s)((%s)%s %s (%s)%s)" % (T, t.wrap, x, SYM[op], t.wrap, y)
    if op in ("add", "sub", "mul", "div"):
        return "(%s)((%s)%s %s (%s)%s)" % (T, w, x, SYM[op], w, y)
    if op in ("andb", "orb", "xor", "neqv", "andl", "orl"):
        return "(%s)(%s %s %s)" % (T, x, SYM[op], y)
    if op == "eqv":
        return "(%s)~(%s ^ %s)" % (T, x, y)
    if op == "shl":
        return "(%s)((%s)%s << %s)" % (T, t.wrap, x, y)
    if op == "shr":
        return "(%s)(%s >> %s)" % (T, x, y)
    raise AssertionError(op)


def aligned(ptr, t):
    return "MUSTER_KMP_ALIGNED(%s, %d)" % (ptr, t.size)


def lockfree_branch(t, ptr, free_lines, locked_lines):
    """The lines of: lock-free code when ptr is aligned, else under the lock."""
    locked = ["muster_kmp_atomic_lock();"] + locked_lines + ["muster_kmp_atomic_unlock();"]
    if not t.lockfree:
        return locked
    if t.size == 1:
        return free_lines
    return (["if (%s) {" % aligned(ptr, t)] + ["    " + s for s in free_lines] + ["} else {"]
            + ["    " + s for s in locked] + ["}"])


def body_update(f):
    t, r, op = f.t, f.r, f.op
    x, y = ("rhs", "old") if f.rev else ("old", "rhs")
    minmax = op in ("min", "max")
    if minmax:
        cond = "old %s rhs" % ("<" if op == "max" else ">")
        locked = ["old = *lhs;", "nv = %s ? rhs : old;" % cond, "if (%s)" % cond, "    *lhs = nv;"]
    else:
        expr = op_expr(op, t, r, x, y)
        locked = ["old = *lhs;", "nv = %s;" % expr, "*lhs = nv;"]
    cpt = f.form == "cpt"
    fetch = t.lockfree and t.integer and op in FETCH and not f.rev and r is t
    lines = ["%s old, nv;" % t.c]
    if fetch:
        if cpt:
            free = ["old = __atomic_fetch_%s(lhs, rhs, %s);" % (FETCH[op], SEQ), "nv = %s;" % expr]
        else:
            lines = []
            free = ["(void)__atomic_fetch_%s(lhs, rhs, %s);" % (FETCH[op], SEQ)]
            locked = ["*lhs = %s;" % op_expr(op, t, r, "*lhs", "rhs")]
    elif t.lockfree:
        b = t.bits
        ptr = "(%s *)(void *)lhs" % b
        if minmax:
            free = ["%s *bits = %s;" % (b, ptr),
                    "/* seq_cst: where x needs no change this load is the whole operation */",
                    "%s ob = __atomic_load_n(bits, %s), nb;" % (b, SEQ),
                    "for (;;) {",
                    "    memcpy(&old, &ob, sizeof old);",
                    "    if (!(%s)) {" % cond,
                    "        nv = old;",
                    "        break;",
                    "    }",
                    "    nv = rhs;",
                    "    memcpy(&nb, &nv, sizeof nb);",
                    "    if (__atomic_compare_exchange_n(bits, &ob, nb, 1, %s, %s))" % (SEQ, SEQ),
                    "        break;",
                    "}"]
        else:
            free = ["%s *bits = %s;" % (b, ptr),
                    RELAXED_LOAD,
                    "%s ob = __atomic_load_n(bits, __ATOMIC_RELAXED), nb;" % b,
                    "do {",
                    "    memcpy(&old, &ob, sizeof old);",
                    "    nv = %s;" % expr,
                    "    memcpy(&nb, &nv, sizeof nb);",
                    "} while (!__atomic_compare_exchange_n(bits, &ob, nb, 1, %s, %s));" % (SEQ, SEQ)]
    else:
        free = []
    lines += ["(void)id_ref;", "(void)gtid;"]
    lines += lockfree_branch(t, "lhs", free, locked)
    if cpt:
        if f.outptr:
            lines.append("*out = flag ? nv : old;")
        else:
            lines.append("return flag ? nv : old;")
    return lines


def body_access(f):
    t = f.t
    lines = ["(void)id_ref;", "(void)gtid;"]
    if f.form == "rd":
        lines.insert(0, "%s v;" % t.c)
        free = (["%s b = __atomic_load_n((%s *)(void *)loc, %s);" % (t.bits, t.bits, SEQ),
                 "memcpy(&v, &b, sizeof v);"] if t.lockfree else [])
        lines += lockfree_branch(t, "loc", free, ["v = *loc;"])
        lines.append("return v;")
    elif f.form == "wr":
        free = (["%s b;" % t.bits, "memcpy(&b, &rhs, sizeof b);",
                 "__atomic_store_n((%s *)(void *)lhs, b, %s);" % (t.bits, SEQ)] if t.lockfree else [])
        lines += lockfree_branch(t, "lhs", free, ["*lhs = rhs;"])
    else:  # swp
        lines.insert(0, "%s old;" % t.c)
        free = (["%s nb, ob;" % t.bits, "memcpy(&nb, &rhs, sizeof nb);",
                 "ob = __atomic_exchange_n((%s *)(void *)lhs, nb, %s);" % (t.bits, SEQ),
                 "memcpy(&old, &ob, sizeof old);"] if t.lockfree else [])
        lines += lockfree_branch(t, "lhs", free, ["old = *lhs;", "*lhs = rhs;"])
        lines.append("*out = old;" if f.outptr else "return old;")
    return lines


def body_cas(f):
    t = f.t
    b = t.bits
    ret_bool = f.form.startswith("bool")
    cpt = f.form.endswith("_cpt")
    lines = ["%s cur;" % t.c, "_Bool r;", "(void)loc;", "(void)gtid;"]
    free = ["%s eb, db;" % b, "memcpy(&eb, &e, sizeof eb);", "memcpy(&db, &d, sizeof db);",
            "r = __atomic_compare_exchange_n((%s *)(void *)x, &eb, db, 0, %s, %s);" % (b, SEQ, SEQ),
            "memcpy(&cur, &eb, sizeof cur);"]
    locked = ["cur = *x;", "r = cur == e;", "if (r)", "    *x = d;"]
    lines += lockfree_branch(t, "x", free, locked)
    if ret_bool:
        if cpt:
            lines += ["if (!r)", "    *pv = cur;"]
        else:
            lines.append("(void)cur;")
        lines.append("return r;")
    else:
        if cpt:
            lines.append("*pv = r ? d : cur;")
        else:
            lines.append("(void)r;")
        lines.append("return cur;")
    return lines


def body_generic(f):
    n = f.size
    lines = ["(void)id_ref;", "(void)gtid;"]
    locked = ["muster_kmp_atomic_lock();", "f(lhs, lhs, rhs);", "muster_kmp_atomic_unlock();"]
    if n not in (1, 2, 4, 8):
        return lines + locked
    b = "uint%d_t" % (n * 8)
    free = ["%s *bits = (%s *)lhs;" % (b, b),
            RELAXED_LOAD,
            "%s ob = __atomic_load_n(bits, __ATOMIC_RELAXED), nb;" % b,
            "do {",
            "    f(&nb, &ob, rhs);",
            "} while (!__atomic_compare_exchange_n(bits, &ob, nb, 1, %s, %s));" % (SEQ, SEQ)]
    if n == 1:
        return lines + free
    return (lines + ["if (MUSTER_KMP_ALIGNED(lhs, %d)) {" % n] + ["    " + s for s in free] + ["} else {"]
            + ["    " + s for s in locked] + ["}"])


def body(f):
    if f.form in ("update", "cpt"):
        return body_update(f)
    if f.form in ("rd", "wr", "swp"):
        return body_access(f)
    if "_cas" in f.form:
        return body_cas(f)
    if f.form == "generic":
        return body_generic(f)
    if f.form == "start":
        return ["muster_kmp_atomic_lock();"]
    if f.form == "end":
        return ["muster_kmp_atomic_unlock();"]
    raise AssertionError(f.form)


C_HEAD = r"""/* Generated by scripts/gen_kmp_atomics.py: do not edit.
 *
 * LLVM libomp's __kmpc_atomic_* entry points.  Types of 1, 2, 4 or 8 bytes at
 * an address aligned to their size are updated lock-free (__atomic_fetch_* or
 * a compare-and-swap loop on the same-size unsigned integer); everything else
 * runs under one process-wide spin lock, the one __kmpc_atomic_start/end
 * take. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <sched.h>
#include <stdint.h>
#include <string.h>

typedef struct ident ident_t;

#define MUSTER_KMP_ATOMIC_EXPORT __attribute__((visibility("default")))
#define MUSTER_KMP_ALIGNED(p, n) ((((uintptr_t)(const void *)(p)) & (uintptr_t)((n) - 1)) == 0)

_Static_assert(sizeof(signed char) == 1 && sizeof(short) == 2, "fixed1 and fixed2 sizes");
_Static_assert(sizeof(float) == 4 && sizeof(double) == 8 && sizeof(float _Complex) == 8,
               "float4, float8 and cmplx4 sizes");
#if __GCC_ATOMIC_CHAR_LOCK_FREE != 2 || __GCC_ATOMIC_SHORT_LOCK_FREE != 2 || __GCC_ATOMIC_INT_LOCK_FREE != 2 || \
    __GCC_ATOMIC_LLONG_LOCK_FREE != 2
#error "1, 2, 4 and 8 byte atomics must be lock-free"
#endif

/* The lock: a test-and-test-and-set word on a cache line of its own. */
static struct {
    _Alignas(64) unsigned int word;
} muster_kmp_atomic_lock_;

static inline void muster_kmp_atomic_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

static void muster_kmp_atomic_lock(void)
{
    unsigned int spins = 0;
    /* acquire: pairs with the release store in muster_kmp_atomic_unlock */
    while (__atomic_exchange_n(&muster_kmp_atomic_lock_.word, 1u, __ATOMIC_ACQUIRE) != 0u) {
        /* relaxed: only a hint to retry; the acquire exchange above takes the lock */
        while (__atomic_load_n(&muster_kmp_atomic_lock_.word, __ATOMIC_RELAXED) != 0u) {
            if (++spins < 256u) {
                muster_kmp_atomic_pause();
            } else {
                spins = 0;
                sched_yield();
            }
        }
    }
}

static void muster_kmp_atomic_unlock(void)
{
    /* release: pairs with the acquire exchange in muster_kmp_atomic_lock */
    __atomic_store_n(&muster_kmp_atomic_lock_.word, 0u, __ATOMIC_RELEASE);
}
"""


def gen_c(fns):
    out = [C_HEAD, "/* The exported entry points, declared first. */"]
    for f in fns:
        out.append("%s %s;" % (EXPORT, proto(f)))
    out.append("")
    for f in fns:
        out.append("%s %s\n{" % (EXPORT, proto(f)))
        out += ["    " + s for s in body(f)]
        out.append("}\n")
    return "\n".join(out)


# ---------------------------------------------------------------- the test

def lit(t, v):
    """A C constant of type t for the Python value v (complex for cmplx)."""
    if t.integer:
        return "(%s)%d" % (t.c, v)
    if t.kind == "real":
        return "(%s)%r" % (t.c, float(v))
    return "(%s)(%r + %r * I)" % (t.c, v.real, v.imag)


def values(f):
    """The (x, rhs) pairs to check f's operation on."""
    t, r, op, rev = f.t, f.r, f.op, f.rev
    if t.kind == "cmplx":
        return [(1.5 + 2j, 0.5 - 1j) if r is t else (1.5 + 2j, 0.1 - 0.3j)]
    if t.kind == "real":
        if r is not t:
            return [(1.5, 0.1)]
        if op in ("min", "max"):
            return [(1.5, 0.25), (0.25, 1.5)]
        return [(1.5, 0.25)]
    if r is not t:  # fixedN_op_float8
        return [(12, 2.5)]
    unsigned = t.kind == "uint"
    table = {
        "add": (12, 5), "sub": (12, 5), "mul": (12, 5), "div": (7, 60) if rev else (60, 7),
        "andb": (12, 10), "orb": (12, 10), "xor": (12, 10), "neqv": (12, 10), "eqv": (12, 10),
        "shl": (3, 5) if rev else (5, 3),
        "shr": ((3, 200) if rev else (200, 3)) if unsigned else ((3, -64) if rev else (-64, 3)),
        "andl": (2, 0), "orl": (0, 3),
    }
    if unsigned and op == "div":
        return [(7, 200) if rev else (200, 7)]
    if op in ("min", "max"):
        return [(5, 9), (9, 5)]
    if op in ("andl", "orl"):
        return [table[op], (2, 3) if op == "andl" else (0, 0)]
    return [table[op]]


def expected(f):
    """C statements leaving in `e` what plain C computes for x0 op y0."""
    op = f.op
    if f.rev:
        return "e = y0 %s x0;" % SYM[op]
    if op == "max":
        return "e = x0;\n    if (e < y0)\n        e = y0;"
    if op == "min":
        return "e = x0;\n    if (e > y0)\n        e = y0;"
    if op in ("andl", "orl"):
        return "e = x0 %s y0;" % SYM[op]
    if op == "eqv":
        return "e = ~(x0 ^ y0);"
    return "e = x0;\n    e %s= y0;" % SYM[op]


def eq(t, a, b):
    if t.kind == "cmplx":
        return "near_c(%s, %s)" % (a, b)
    return "(%s) == (%s)" % (a, b)


def show(t, v):
    """printf arguments showing the value v of type t."""
    if t.integer:
        return '"%lld", (long long)(' + v + ")"
    if t.kind == "real":
        return '"%Lg", (long double)(' + v + ")"
    return '"%Lg%+Lgi", creall((long double _Complex)(' + v + ")), cimagl((long double _Complex)(" + v + "))"


def check(t, got, want, what):
    """A statement failing the test unless got equals want."""
    return ("if (!(%s)) {\n        fprintf(stderr, \"FAIL %%s: %s: got \", name);\n"
            "        fprintf(stderr, %s);\n        fprintf(stderr, \" want \");\n"
            "        fprintf(stderr, %s);\n        fprintf(stderr, \"\\n\");\n        return 1;\n    }"
            % (eq(t, got, want), what, show(t, got), show(t, want)))


def test_update(f):
    t, r = f.t, f.r
    out = []
    for i, (xv, yv) in enumerate(values(f)):
        s = ["{", "    volatile %s vx = %s;" % (t.c, lit(t, xv)), "    volatile %s vy = %s;" % (r.c, lit(r, yv)),
             "    %s x0 = vx, x, e, got = x0;" % t.c, "    %s y0 = vy;" % r.c,
             "    " + expected(f)]
        if f.form == "update":
            s += ["    x = x0;", "    %s(NULL, 0, &x, y0);" % f.name, "    (void)got;",
                  "    " + check(t, "x", "e", "case %d: the new value" % i)]
        else:
            for flag in (1, 0):
                want = "e" if flag else "x0"
                s.append("    x = x0;")
                if f.outptr:
                    s.append("    %s(NULL, 0, &x, y0, &got, %d);" % (f.name, flag))
                else:
                    s.append("    got = %s(NULL, 0, &x, y0, %d);" % (f.name, flag))
                s += ["    " + check(t, "x", "e", "case %d flag %d: the new value" % (i, flag)),
                      "    " + check(t, "got", want, "case %d flag %d: the captured value" % (i, flag))]
        s.append("}")
        out += s
    return out


def test_access(f):
    t = f.t
    xv, yv = {"sint": (-5, 42), "real": (1.5, -0.25), "cmplx": (1.5 + 2j, -0.25 + 4j)}[t.kind]
    s = ["volatile %s vx = %s;" % (t.c, lit(t, xv)), "volatile %s vy = %s;" % (t.c, lit(t, yv)),
         "%s x0 = vx, y0 = vy, x = x0, got = x0;" % t.c]
    if f.form == "rd":
        s += ["got = %s(NULL, 0, &x);" % f.name, "(void)y0;", check(t, "got", "x0", "the value read"),
              check(t, "x", "x0", "the location")]
    elif f.form == "wr":
        s += ["%s(NULL, 0, &x, y0);" % f.name, "(void)got;", check(t, "x", "y0", "the value written")]
    else:
        if f.outptr:
            s.append("%s(NULL, 0, &x, y0, &got);" % f.name)
        else:
            s.append("got = %s(NULL, 0, &x, y0);" % f.name)
        s += [check(t, "got", "x0", "the old value"), check(t, "x", "y0", "the new value")]
    return s


def test_cas(f):
    t = f.t
    n = t.size
    e0, e1, d = {1: (11, 12, 13), 2: (-1100, 1200, 1300), 4: (-211000, 212000, 213000),
                 8: (-(1 << 40) - 3, (1 << 41) + 5, (1 << 42) + 7)}[n]
    L = lambda v: lit(t, v)  # noqa: E731
    s = ["%s x = %s, pv = 0, got = 0;" % (t.c, L(e1)), "_Bool r = 0;", "(void)r;", "(void)got;", "(void)pv;"]
    call_args = lambda e: "NULL, 0, &x, %s, %s%s" % (L(e), L(d), ", &pv" if "cpt" in f.form else "")  # noqa: E731
    # a failing comparison: x stays
    if f.form.startswith("bool"):
        s += ["r = %s(%s);" % (f.name, call_args(e0)),
              "if (r) {", '    fprintf(stderr, "FAIL %s: a failed comparison returned true\\n", name);',
              "    return 1;", "}"]
    else:
        s += ["got = %s(%s);" % (f.name, call_args(e0)), check(t, "got", L(e1), "failed comparison: the old value")]
    s.append(check(t, "x", L(e1), "failed comparison: the location"))
    if f.form == "bool_cas_cpt":
        s.append(check(t, "pv", L(e1), "failed comparison: *pv gets the old value"))
    if f.form == "val_cas_cpt":
        s.append(check(t, "pv", L(e1), "failed comparison: *pv gets the value"))
    # a succeeding comparison: x = d
    s.append("pv = 0;")
    if f.form.startswith("bool"):
        s += ["r = %s(%s);" % (f.name, call_args(e1)),
              "if (!r) {", '    fprintf(stderr, "FAIL %s: a comparison that holds returned false\\n", name);',
              "    return 1;", "}"]
    else:
        s += ["got = %s(%s);" % (f.name, call_args(e1)), check(t, "got", L(e1), "comparison holds: the old value")]
    s.append(check(t, "x", L(d), "comparison holds: the location"))
    if f.form == "bool_cas_cpt":
        s.append(check(t, "pv", "0", "comparison holds: *pv is left alone"))
    if f.form == "val_cas_cpt":
        s.append(check(t, "pv", L(d), "comparison holds: *pv gets the new value"))
    return s


GENERIC_TEST = {
    # size: (C type, callback name, x, rhs, want)
    1: ("uint8_t", "add_u8", "200", "50", "250"),
    2: ("uint16_t", "add_u16", "60000", "5000", "65000"),
    4: ("float", "add_f", "1.5f", "0.25f", "1.75f"),
    8: ("double", "add_d", "1.5", "0.25", "1.75"),
    10: ("long double", "add_ld", "1.5L", "0.25L", "1.75L"),
    16: ("double _Complex", "add_cd", "(1.5 + 2.0 * I)", "(0.25 - 1.0 * I)", "(1.75 + 1.0 * I)"),
    20: ("struct five", "add_five", "{{1, 2, 3, 4, 5}}", "{{10, 20, 30, 40, 50}}", None),
    32: ("long double _Complex", "add_cld", "(1.5L + 2.0L * I)", "(0.25L - 1.0L * I)", "(1.75L + 1.0L * I)"),
}

T_HEAD = r"""/* Generated by scripts/gen_kmp_atomics.py: do not edit.
 *
 * Checks the __kmpc_atomic_* entry points of the library it is linked with:
 * each once against the plain C expression, then a few of them from 7
 * threads at once.  Exits 0 when all pass, else prints the first failure and
 * exits 1.  Build: cc -O2 THIS.c -lmuster-omp -lpthread (or any library
 * exporting these names). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <complex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ident ident_t;

/* The entry points, as the library declares them. */
"""

T_HELPERS = r"""
/* Complex products and quotients may round differently where one side is
 * contracted to fused multiply-adds: equal to a few ulps. */
static long double abs_ld(long double v)
{
    return v < 0 ? -v : v;
}
static int near_c(long double _Complex a, long double _Complex b)
{
    long double d = abs_ld(creall(a) - creall(b)) + abs_ld(cimagl(a) - cimagl(b));
    long double m = abs_ld(creall(a)) + abs_ld(cimagl(a)) + abs_ld(creall(b)) + abs_ld(cimagl(b));
    return a == b || d <= m * 1e-6L;
}

struct five {
    int32_t v[5];
};

static void add_u8(void *out, void *a, void *b)
{
    *(uint8_t *)out = (uint8_t)(*(uint8_t *)a + *(uint8_t *)b);
}
static void add_u16(void *out, void *a, void *b)
{
    *(uint16_t *)out = (uint16_t)(*(uint16_t *)a + *(uint16_t *)b);
}
static void add_f(void *out, void *a, void *b)
{
    *(float *)out = *(float *)a + *(float *)b;
}
static void add_d(void *out, void *a, void *b)
{
    *(double *)out = *(double *)a + *(double *)b;
}
static void add_ld(void *out, void *a, void *b)
{
    *(long double *)out = *(long double *)a + *(long double *)b;
}
static void add_cd(void *out, void *a, void *b)
{
    *(double _Complex *)out = *(double _Complex *)a + *(double _Complex *)b;
}
static void add_cld(void *out, void *a, void *b)
{
    *(long double _Complex *)out = *(long double _Complex *)a + *(long double _Complex *)b;
}
static void add_five(void *out, void *a, void *b)
{
    struct five x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    for (int i = 0; i < 5; i++)
        x.v[i] += y.v[i];
    memcpy(out, &x, sizeof x);
}
/* On any alignment: lhs may be misaligned on purpose. */
static void add_i32_unaligned(void *out, void *a, void *b)
{
    int32_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    x += y;
    memcpy(out, &x, sizeof x);
}
"""

# The threaded check: (entry point, type, variable's first value, increment).
THREADED = [
    ("__kmpc_atomic_fixed1_add", "signed char", "0", "1"),
    ("__kmpc_atomic_fixed2_add", "short", "0", "1"),
    ("__kmpc_atomic_fixed4_add", "int32_t", "0", "1"),
    ("__kmpc_atomic_fixed8_add", "int64_t", "(int64_t)0xffffffff - 70000", "1"),
    ("__kmpc_atomic_float4_add", "float", "0.0f", "1.0f"),
    ("__kmpc_atomic_float8_add", "double", "0.0", "0.5"),
    ("__kmpc_atomic_cmplx4_add", "float _Complex", "0", "(1.0f + 2.0f * I)"),
    ("__kmpc_atomic_float10_add", "long double", "0.0L", "0.25L"),
    ("__kmpc_atomic_cmplx8_add", "double _Complex", "0", "(1.0 + 2.0 * I)"),
    ("__kmpc_atomic_cmplx10_add", "long double _Complex", "0", "(1.0L + 2.0L * I)"),
]


def gen_test(fns):
    out = [T_HEAD]
    for f in fns:
        out.append("extern %s;" % proto(f))
    out.append(T_HELPERS)
    calls = []
    for f in fns:
        if f.form in ("update", "cpt"):
            b = test_update(f)
        elif f.form in ("rd", "wr", "swp"):
            b = test_access(f)
        elif "_cas" in f.form:
            b = test_cas(f)
        elif f.form == "generic":
            ty, cb, xv, rv, want = GENERIC_TEST[f.size]
            b = ["%s x = %s, rhs = %s;" % (ty, xv, rv), "%s(NULL, 0, &x, &rhs, %s);" % (f.name, cb)]
            if f.size == 20:
                b += ["for (int i = 0; i < 5; i++) {",
                      "    if (x.v[i] != 11 * (i + 1)) {",
                      '        fprintf(stderr, "FAIL %s: element %d is %d\\n", name, i, (int)x.v[i]);',
                      "        return 1;", "    }", "}"]
            else:
                kind = ("cmplx" if "Complex" in ty else "real" if ty in ("float", "double", "long double")
                        else "uint")
                t = Ty("", ty, None, kind)
                b.append(check(t, "x", want, "the updated value"))
        elif f.form == "start":
            b = ["volatile int x = 1;", "%s();" % f.name, "x = x + 1;", "__kmpc_atomic_end();",
                 "if (x != 2) {", '    fprintf(stderr, "FAIL %s\\n", name);', "    return 1;", "}"]
        else:
            b = ["%s();" % "__kmpc_atomic_start", "%s();" % f.name, "(void)name;"]
        fn = "t_" + f.name[len("__kmpc_atomic_"):]
        out.append("static int %s(void)\n{\n    const char *name = \"%s\";" % (fn, f.name))
        out += ["    " + ln for s in b for ln in s.split("\n")]
        out.append("    return 0;\n}\n")
        calls.append(fn)
    out.append(misaligned_tests())
    out.append(threaded_test())
    out.append("int main(void)\n{")
    for c in calls + ["t_misaligned", "t_threads"]:
        out.append("    if (%s())\n        return 1;" % c)
    out.append('    printf("ok: %d entry points, then 7 threads\\n");' % len(fns))
    out.append("    return 0;\n}")
    return "\n".join(out) + "\n"


def misaligned_tests():
    return r"""/* cmplx4 needs only 4-byte alignment: at 4 mod 8 it takes the lock; and the
 * generic 4-byte form on an odd address. */
static int t_misaligned(void)
{
    const char *name = "misaligned cmplx4 and __kmpc_atomic_4";
    static _Alignas(8) struct {
        float pad;
        float _Complex c;
    } s;
    float _Complex got, y = 0.5f - 1.0f * I;
    if (((uintptr_t)&s.c & 7u) != 4u) {
        fprintf(stderr, "FAIL %s: the test's layout\n", name);
        return 1;
    }
    s.c = 1.5f + 2.0f * I;
    __kmpc_atomic_cmplx4_add(NULL, 0, &s.c, y);
    __kmpc_atomic_cmplx4_mul_cpt(NULL, 0, &s.c, y, &got, 1);
    if (!near_c(got, (2.0f + 1.0f * I) * y) || !near_c(s.c, got)) {
        fprintf(stderr, "FAIL %s: add, mul_cpt\n", name);
        return 1;
    }
    __kmpc_atomic_cmplx4_wr(NULL, 0, &s.c, y);
    __kmpc_atomic_cmplx4_swp(NULL, 0, &s.c, 3.0f + 0.0f * I, &got);
    if (got != y || __kmpc_atomic_cmplx4_rd(NULL, 0, &s.c) != 3.0f + 0.0f * I) {
        fprintf(stderr, "FAIL %s: wr, swp, rd\n", name);
        return 1;
    }
    static _Alignas(8) unsigned char buf[16];
    int32_t v = 40, inc = 2;
    memcpy(buf + 1, &v, sizeof v);
    __kmpc_atomic_4(NULL, 0, buf + 1, &inc, add_i32_unaligned);
    memcpy(&v, buf + 1, sizeof v);
    if (v != 42) {
        fprintf(stderr, "FAIL %s: generic on an odd address gave %d\n", name, (int)v);
        return 1;
    }
    return 0;
}
"""


def threaded_test():
    out = ["#define NTHREADS 7", "#define NITER 20000", "#define TOTAL (NTHREADS * NITER)", ""]
    for i, (fn, ty, init, inc) in enumerate(THREADED):
        out.append("static %s th_%d;" % (ty, i))
    out += ["static float th_generic4;", "static long double th_generic16;",
            "static long double th_mixed; /* float10_add and start/end on one variable */",
            "static _Alignas(8) struct {", "    float pad;", "    float _Complex c;", "} th_odd;",
            "static unsigned char th_seen[TOTAL];", "static int32_t th_cpt;",
            "static pthread_barrier_t th_barrier;", "",
            "static void th_delay(uint32_t *seed)",
            "{",
            "    *seed ^= *seed << 13;",
            "    *seed ^= *seed >> 17;",
            "    *seed ^= *seed << 5;",
            "    for (volatile uint32_t i = 0; i < (*seed & 15u); i++) {",
            "    }",
            "}", "",
            "static void *th_worker(void *arg)",
            "{",
            "    int id = (int)(intptr_t)arg;",
            "    uint32_t seed = 2463534242u + (uint32_t)id * 7919u;",
            "    float one_f = 1.0f;",
            "    long double quarter = 0.25L;",
            "    pthread_barrier_wait(&th_barrier);",
            "    for (int i = 0; i < NITER; i++) {"]
    for i, (fn, ty, init, inc) in enumerate(THREADED):
        out += ["        %s(NULL, 0, &th_%d, %s);" % (fn, i, inc), "        th_delay(&seed);"]
    out += ["        __kmpc_atomic_4(NULL, 0, &th_generic4, &one_f, add_f);",
            "        th_delay(&seed);",
            "        __kmpc_atomic_16(NULL, 0, &th_generic16, &quarter, add_ld);",
            "        th_delay(&seed);",
            "        __kmpc_atomic_cmplx4_add(NULL, 0, &th_odd.c, 1.0f + 2.0f * I);",
            "        th_delay(&seed);",
            "        if (id & 1) {",
            "            __kmpc_atomic_float10_add(NULL, 0, &th_mixed, 0.25L);",
            "        } else {",
            "            __kmpc_atomic_start();",
            "            th_mixed += 0.25L;",
            "            __kmpc_atomic_end();",
            "        }",
            "        th_delay(&seed);",
            "        int32_t old = __kmpc_atomic_fixed4_add_cpt(NULL, 0, &th_cpt, 1, 0);",
            "        if (old >= 0 && old < TOTAL)",
            "            __atomic_fetch_add(&th_seen[old], 1, __ATOMIC_SEQ_CST);",
            "        th_delay(&seed);",
            "    }",
            "    return NULL;",
            "}", "",
            "static int t_threads(void)",
            "{",
            "    const char *name = \"7 threads\";",
            "    pthread_t th[NTHREADS];"]
    for i, (fn, ty, init, inc) in enumerate(THREADED):
        out.append("    th_%d = %s;" % (i, init))
    out += ["    pthread_barrier_init(&th_barrier, NULL, NTHREADS);",
            "    for (int i = 0; i < NTHREADS; i++) {",
            "        if (pthread_create(&th[i], NULL, th_worker, (void *)(intptr_t)i) != 0) {",
            "            fprintf(stderr, \"FAIL %s: pthread_create\\n\", name);",
            "            return 1;",
            "        }",
            "    }",
            "    for (int i = 0; i < NTHREADS; i++)",
            "        pthread_join(th[i], NULL);",
            "    pthread_barrier_destroy(&th_barrier);"]
    for i, (fn, ty, init, inc) in enumerate(THREADED):
        if ty in ("signed char", "short"):
            u = "unsigned char" if ty == "signed char" else "unsigned short"
            cond = "(%s)th_%d == (%s)(unsigned)TOTAL" % (u, i, u)
        else:
            cond = "th_%d == (%s)(%s) + (%s)TOTAL * (%s)" % (i, ty, init, ty, inc)
        out += ["    if (!(%s)) {" % cond,
                "        fprintf(stderr, \"FAIL %%s: %s total\\n\", name);" % fn,
                "        return 1;",
                "    }"]
    out += ["    if (th_generic4 != (float)TOTAL || th_generic16 != 0.25L * TOTAL) {",
            "        fprintf(stderr, \"FAIL %s: __kmpc_atomic_4 or __kmpc_atomic_16 total\\n\", name);",
            "        return 1;",
            "    }",
            "    if (th_odd.c != (float)TOTAL * (1.0f + 2.0f * I)) {",
            "        fprintf(stderr, \"FAIL %s: misaligned cmplx4 total\\n\", name);",
            "        return 1;",
            "    }",
            "    if (th_mixed != 0.25L * TOTAL) {",
            "        fprintf(stderr, \"FAIL %s: float10_add beside __kmpc_atomic_start/end\\n\", name);",
            "        return 1;",
            "    }",
            "    if (th_cpt != TOTAL) {",
            "        fprintf(stderr, \"FAIL %s: fixed4_add_cpt total\\n\", name);",
            "        return 1;",
            "    }",
            "    for (int i = 0; i < TOTAL; i++) {",
            "        if (th_seen[i] != 1) {",
            "            fprintf(stderr, \"FAIL %s: fixed4_add_cpt returned %d %d times\\n\", name, i, th_seen[i]);",
            "            return 1;",
            "        }",
            "    }",
            "    return 0;",
            "}", ""]
    return "\n".join(out)


# ---------------------------------------------------------------- main


def write(path, text):
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--c", required=True, help="the C source to write")
    ap.add_argument("--names", required=True, help="the exported names to write, one a line, sorted")
    ap.add_argument("--test", help="the self-checking test program to write")
    args = ap.parse_args(argv)
    fns = entries()
    write(args.c, gen_c(fns))
    write(args.names, "".join(n + "\n" for n in sorted(f.name for f in fns)))
    if args.test:
        write(args.test, gen_test(fns))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
