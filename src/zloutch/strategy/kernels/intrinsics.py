"""The lane kernel's operations written in LLVM's terms (Numba intrinsics).

``make`` builds them once, when the lane kernel is compiled (``scheduler.compile_lanes``),
which puts them among the globals of the modules whose loops call them: Numba reads a
function's globals when it compiles it.
"""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

import numpy as np

from zloutch.strategy.kernels.item import LANES


def make() -> dict[str, Any]:
    """Operations written in LLVM's terms, for the lane kernel (module globals, which Numba
    reads when it compiles).

    On ``array[i]`` (an int64 array): ``fetch_add(array, i, value)`` adds as one atomic
    instruction and returns the value before; ``load(array, i)`` and ``store(array, i,
    value)`` read and write it atomically (so that a loop waiting on it reads it again, and
    what was written before a store is seen after the load that reads it);
    ``swap_if(array, i, expected, value)`` writes ``value`` where ``expected`` is found and
    returns what was found. ``ticks()``: the processor's time-stamp counter (a clock to
    compare with itself). ``spin()``: a few cycles' wait, the core kept (x86's ``pause``).
    ``cpu()``: the CPU this thread runs on (``sched_getcpu``). ``pause()``:
    ``sched_yield``, the core to any other thread that
    waits for it. ``node_sum(tab, base, off, opt_start, sig_prob, lo, hi, at, derivative)``:
    a throw node's value, written at ``tab[at:at + LANES]``: over its signatures ``lo:hi``,
    the sum of ``sig_prob[s]`` times each lane's best option (``opt_start[s]`` to
    ``opt_start[s + 1]``) ``tab[base + off[o] + k]``, in the signatures' order; with
    ``derivative``, the derivative of the first of equal best ones (``LANES`` further on)
    summed the same way and written at ``tab[at + LANES:at + 2 * LANES]``, as
    ``reference.kernel_python``; without it, values alone are read and written. The sums
    stay in registers until written (in the table each signature's sum waited for the
    last one's store). The lanes are one vector of ``LANES`` doubles: Numba leaves LLVM's
    SLP vectoriser off, so the loop over lanes is stated as vector operations here
    (compare, select, multiply, add: the same roundings as the scalar loop).
    """
    from llvmlite import ir  # type: ignore[import-untyped]
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    i64 = ir.IntType(64)
    one = ir.Constant(i64, 1)
    vector = ir.VectorType(ir.DoubleType(), LANES)
    once: Any = cgutils.alloca_once_value  # a variable LLVM keeps in a register

    def data(context: Any, builder: Any, kind: Any, value: Any) -> Any:
        return context.make_array(kind)(context, builder, value).data

    def element(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.gep(data(context, builder, signature.args[0], args[0]), [args[1]])

    def lanes_at(builder: Any, pointer: Any, at: Any) -> Any:
        return builder.bitcast(builder.gep(pointer, [at]), vector.as_pointer())

    def external(builder: Any, name: str, kind: Any) -> Any:
        found = builder.module.globals.get(name)
        return found if found is not None else ir.Function(builder.module, kind, name)

    @intrinsic
    def fetch_add(typingctx: Any, array: Any, i: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            pointer = element(context, builder, signature, args)
            return builder.atomic_rmw("add", pointer, args[2], "seq_cst")

        return types.int64(array, types.int64, types.int64), codegen

    @intrinsic
    def load(typingctx: Any, array: Any, i: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            pointer = element(context, builder, signature, args)
            return builder.load_atomic(pointer, "seq_cst", 8)

        return types.int64(array, types.int64), codegen

    @intrinsic
    def store(typingctx: Any, array: Any, i: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            pointer = element(context, builder, signature, args)
            builder.store_atomic(args[2], pointer, "seq_cst", 8)
            return context.get_dummy_value()

        return types.void(array, types.int64, types.int64), codegen

    @intrinsic
    def swap_if(typingctx: Any, array: Any, i: Any, expected: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            pointer = element(context, builder, signature, args)
            pair = builder.cmpxchg(pointer, args[2], args[3], "seq_cst", "seq_cst")
            return builder.extract_value(pair, 0)

        return types.int64(array, types.int64, types.int64, types.int64), codegen

    # Elsewhere than on x86 (whose time-stamp counter user code may read), ticks() is 0:
    # no time per row is known, so nothing is done again and waiting threads yield; no CPU
    # is known but on Linux, and no yield on Windows.
    x86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "i386")
    linux = sys.platform.startswith("linux")
    posix = os.name == "posix"

    @intrinsic
    def ticks(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            if not x86:
                return ir.Constant(i64, 0)
            kind = ir.FunctionType(i64, [])
            counter = builder.module.declare_intrinsic("llvm.readcyclecounter", fnty=kind)
            return builder.call(counter, [])

        return types.int64(), codegen

    @intrinsic
    def spin(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            if x86:
                kind = ir.FunctionType(ir.VoidType(), [])
                for _ in range(8):
                    builder.call(external(builder, "llvm.x86.sse2.pause", kind), [])
            return context.get_dummy_value()

        return types.void(), codegen

    @intrinsic
    def cpu(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            if not linux:
                return ir.Constant(i64, -1)  # unknown
            where = external(builder, "sched_getcpu", ir.FunctionType(ir.IntType(32), []))
            return builder.sext(builder.call(where, []), i64)

        return types.int64(), codegen

    @intrinsic
    def pause(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            if posix:
                kind = ir.FunctionType(ir.IntType(32), [])
                builder.call(external(builder, "sched_yield", kind), [])
            return context.get_dummy_value()

        return types.void(), codegen

    @intrinsic
    def node_sum(
        typingctx: Any,
        tab: Any,
        base: Any,
        off: Any,
        opt_start: Any,
        sig_prob: Any,
        lo: Any,
        hi: Any,
        at: Any,
        derivative: Any,
    ) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            kinds = signature.args
            tab_p = data(context, builder, kinds[0], args[0])
            off_p = data(context, builder, kinds[2], args[2])
            start_p = data(context, builder, kinds[3], args[3])
            prob_p = data(context, builder, kinds[4], args[4])
            base, lo, hi, at = args[1], args[5], args[6], args[7]
            minus_inf = ir.Constant(vector, [-np.inf] * LANES)
            zeros = ir.Constant(vector, [0.0] * LANES)
            lanes_32 = ir.VectorType(ir.IntType(32), LANES)

            def signatures(with_derivative: bool) -> None:
                # The sums in registers (allocas LLVM promotes), not in the table: written
                # there once, not read back after each signature.
                total, dtotal = once(builder, zeros), once(builder, zeros)
                best, dbest = once(builder, minus_inf), once(builder, zeros)
                with cgutils.for_range(builder, builder.sub(hi, lo)) as outer:
                    sig = builder.add(lo, outer.index)
                    first = builder.load(builder.gep(start_p, [sig]))
                    last = builder.load(builder.gep(start_p, [builder.add(sig, one)]))
                    builder.store(minus_inf, best)
                    builder.store(zeros, dbest)
                    with cgutils.for_range(builder, builder.sub(last, first)) as inner:
                        o = builder.add(first, inner.index)
                        where = builder.add(base, builder.load(builder.gep(off_p, [o])))
                        v = builder.load(lanes_at(builder, tab_p, where), align=8)
                        b = builder.load(best)
                        better = builder.fcmp_ordered(">", v, b)
                        builder.store(builder.select(better, v, b), best)
                        if with_derivative:  # the first of equal values gives it
                            next_lanes = builder.add(where, ir.Constant(i64, LANES))
                            d = builder.load(lanes_at(builder, tab_p, next_lanes), align=8)
                            builder.store(builder.select(better, d, builder.load(dbest)), dbest)
                    prob = builder.load(builder.gep(prob_p, [sig]))
                    spread = builder.insert_element(
                        ir.Constant(vector, ir.Undefined), prob, ir.Constant(ir.IntType(32), 0)
                    )
                    spread = builder.shuffle_vector(
                        spread,
                        ir.Constant(vector, ir.Undefined),
                        ir.Constant(lanes_32, [0] * LANES),
                    )
                    sums = ((total, best), (dtotal, dbest)) if with_derivative else ((total, best),)
                    for acc, found in sums:
                        product = builder.fmul(spread, builder.load(found))
                        builder.store(builder.fadd(builder.load(acc), product), acc)
                sums = ((0, total), (LANES, dtotal)) if with_derivative else ((0, total),)
                for offset, acc in sums:
                    pointer = lanes_at(builder, tab_p, builder.add(at, ir.Constant(i64, offset)))
                    builder.store(builder.load(acc), pointer, align=8)

            flag = context.cast(builder, args[8], kinds[8], types.boolean)
            with builder.if_else(flag) as (with_it, without):
                with with_it:
                    signatures(True)
                with without:
                    signatures(False)
            return context.get_dummy_value()

        kinds = (
            tab,
            types.int64,
            off,
            opt_start,
            sig_prob,
            types.int64,
            types.int64,
            types.int64,
            derivative,
        )
        return types.void(*kinds), codegen

    return {
        "_fetch_add": fetch_add,
        "_load": load,
        "_store": store,
        "_swap_if": swap_if,
        "_ticks": ticks,
        "_spin": spin,
        "_cpu": cpu,
        "_pause": pause,
        "_node_sum": node_sum,
    }
