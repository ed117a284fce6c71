"""Compile the CUDA kernels to PTX for a Hopper GPU (sm_90) without a GPU, through NVVM.

Run by ``test_cuda_kernel.py`` in a subprocess (the real ``numba.cuda``, not the simulator)
where Numba finds NVVM and libdevice (``CUDA_HOME``: a CUDA toolkit, or the folder
``nvidia/cuda_nvcc`` of the ``nvidia-cuda-nvcc-cu12`` wheel); prints the PTX of each kernel
to ``OUT_DIR/NAME.ptx``. Exits with ``NO_NVVM`` (the test is skipped) when Numba finds no
NVVM, or is a ``numba.cuda`` whose device functions this script cannot point at sm_90.
"""

from __future__ import annotations

import sys
from pathlib import Path

NO_NVVM = 3


def main(out: Path) -> None:
    from numba import cuda, types
    from numba.cuda import dispatcher
    from numba.cuda.cudadrv.error import NvvmSupportError

    class Hopper:  # device functions ask the current device for its compute capability
        compute_capability = (9, 0)

    if not hasattr(dispatcher, "get_current_device"):  # another numba.cuda (numba-cuda)
        print("this numba.cuda compiles device functions another way", file=sys.stderr)
        sys.exit(NO_NVVM)
    dispatcher.get_current_device = lambda: Hopper()
    from zloutch.strategy.kernels import cuda_device
    from zloutch.strategy.kernels.cuda import DeviceBanks, DeviceOut, DeviceSweep, DeviceTurn

    ints, doubles = types.int32[::1], types.float64[::1]
    banks = types.NamedTuple(
        (
            types.int64,  # mode
            types.float64[:, :, ::1],  # bank
            types.uint8[:, :, ::1],  # same
            types.uint8[:, :, ::1],  # allowed
            ints,  # pair_score
            types.float64[:, ::1],  # value
            types.uint8[:, ::1],  # nothing
            types.int8[:, ::1],  # kind
            types.int32[:, ::1],  # bank_x
            types.float64[:, ::1],  # win
            types.int64,  # low
            ints,  # pair_opp
        ),
        DeviceBanks,
    )
    turn = types.NamedTuple(
        (
            *[ints] * 2,  # level_start, sig_start
            doubles,  # sig_prob
            *[ints] * 6,  # opt_start, opt_off ... throw_hands
            *[types.int64] * 4,  # ring_rows, columns, signatures, start_col
        ),
        DeviceTurn,
    )
    outputs = types.NamedTuple(
        (types.float64[:, ::1], types.boolean, *[types.float64[:, :, ::1]] * 2, types.boolean),
        DeviceOut,
    )
    sweep = types.NamedTuple((types.int64, ints, ints, doubles), DeviceSweep)
    signature = (
        ints,  # rows
        types.float64[:, ::1],  # farkle, win, boundary
        types.float64,  # d_boundary
        banks,
        turn,
        outputs,
        sweep,
        types.float64[:, ::1],  # scratch
    )
    for name in ("in_shared", "in_global"):
        kernel = getattr(cuda_device, name)
        try:
            ptx, _ = cuda.compile_ptx(kernel.py_func, signature, cc=(9, 0))
        except NvvmSupportError as error:
            print(f"no NVVM: {error}", file=sys.stderr)
            sys.exit(NO_NVVM)
        (out / f"{name}.ptx").write_text(ptx)
    gather = (types.int64, types.int64, ints, types.int64, doubles)
    ptx, _ = cuda.compile_ptx(cuda_device.gather.py_func, gather, cc=(9, 0))
    (out / "gather.ptx").write_text(ptx)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
