"""A sampling profiler for the event loop: ``python benchmarks/sampler.py OUT -m MODULE ARGS``.

Runs ``python -m MODULE ARGS`` with a thread that looks at the main thread's stack every
millisecond (``sys._current_frames``) and counts, for each function, the samples where it is
running (``self``) and those where it is on the stack (``total``). cProfile counts the time of
a coroutine between its awaits in odd places; samples do not, and they cost the loop little.
Samples where the loop waits for its next event are counted as ``idle``. The table goes to
OUT when the process stops (SIGINT or SIGTERM), the functions with the most samples first,
then the loop's stalls: runs of busy samples longer than ``STALL`` seconds (the loop never
went back to wait for events), each with the stack seen most often in it.
"""

from __future__ import annotations

import atexit
import collections
import gc
import runpy
import signal
import sys
import threading
import time
import types

INTERVAL = 0.001
STALL = 0.05

selfs: collections.Counter[str] = collections.Counter()
totals: collections.Counter[str] = collections.Counter()
stalls: list[tuple[float, str]] = []
samples = 0
idle = 0
collections_seen: dict[int, list[float]] = collections.defaultdict(list)
"""Generation -> the seconds each of its collections took (``gc.callbacks``)."""
_gc_began = 0.0


def on_gc(phase: str, info: dict[str, int]) -> None:
    global _gc_began
    if phase == "start":
        _gc_began = time.perf_counter()
    else:
        collections_seen[info["generation"]].append(time.perf_counter() - _gc_began)


def where(frame: types.FrameType) -> str:
    code = frame.f_code
    file = code.co_filename.rsplit("site-packages/", 1)[-1]
    return f"{file}:{code.co_firstlineno}({code.co_name})"


def is_idle(frame: types.FrameType) -> bool:
    """The loop waits for its next event: nothing of Python runs above the loop's own call
    (uvloop's loop is C: the leaf is the frame that started it) or asyncio's select."""
    name = frame.f_code.co_name
    return name in ("select", "run_forever", "run_until_complete", "run", "_run_once") and (
        "asyncio" in frame.f_code.co_filename or "selectors" in frame.f_code.co_filename
    )


def sample(main: int) -> None:
    global samples, idle
    busy_since: float | None = None
    busy_stacks: collections.Counter[str] = collections.Counter()
    while True:
        time.sleep(INTERVAL)
        frame = sys._current_frames().get(main)
        if frame is None:
            return
        samples += 1
        now = time.perf_counter()
        if is_idle(frame):
            idle += 1
            if busy_since is not None and now - busy_since > STALL:
                top = busy_stacks.most_common(1)[0][0]
                stalls.append((now - busy_since, top))
            busy_since = None
            busy_stacks.clear()
            continue
        if busy_since is None:
            busy_since = now
        selfs[where(frame)] += 1
        seen: set[str] = set()
        stack: list[str] = []
        f: types.FrameType | None = frame
        while f is not None:
            name = where(f)
            stack.append(name)
            if name not in seen:
                seen.add(name)
                totals[name] += 1
            f = f.f_back
        busy_stacks[" <- ".join(stack[:10])] += 1


def write(path: str) -> None:
    busy = samples - idle
    with open(path, "w") as out:
        out.write(f"samples {samples} (every {INTERVAL * 1e3:g} ms), idle {idle}, busy {busy}\n")
        out.write("\nself (running)\n")
        for name, n in selfs.most_common(40):
            out.write(f"{n:7d} {n / max(busy, 1):6.1%}  {name}\n")
        out.write("\ntotal (on the stack)\n")
        for name, n in totals.most_common(60):
            out.write(f"{n:7d} {n / max(busy, 1):6.1%}  {name}\n")
        for generation, times in sorted(collections_seen.items()):
            out.write(
                f"\ngc generation {generation}: {len(times)} collections, {sum(times):.2f} s,"
                f" longest {max(times) * 1e3:.0f} ms,"
                f" over {STALL * 1e3:g} ms: {sum(t > STALL for t in times)}"
            )
        out.write(f"\n\nstalls over {STALL * 1e3:g} ms: {len(stalls)}\n")
        for seconds, stack in sorted(stalls, reverse=True)[:20]:
            out.write(f"{seconds * 1e3:7.0f} ms  {stack}\n")


def main() -> None:
    path, flag, module, *rest = sys.argv[1:]
    if flag != "-m":
        raise SystemExit("usage: sampler.py OUT -m MODULE ARGS")
    atexit.register(write, path)
    gc.callbacks.append(on_gc)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    threading.Thread(target=sample, args=(threading.main_thread().ident,), daemon=True).start()
    sys.argv = [module, *rest]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
