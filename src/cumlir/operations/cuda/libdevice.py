"""``cuda.libdevice``: every libdevice routine under its short name (``__nv_sinf`` is
``cuda.libdevice.sinf``), typed as Numba-CUDA types them.

Each routine has exactly one signature, taken from the table below, and numba converts
the arguments to it as for any function with one signature. Integers are typed signed
(``umax`` takes and returns int32), as Numba-CUDA does. Arguments libdevice writes
through a pointer (``frexp``'s exponent, ``sincos``'s two results) are not arguments
here: they are returned after the routine's own result, as a tuple when there is more
than one result. ``__nv_nan``/``__nv_nanf`` are left out, as in Numba-CUDA (their
argument is a tag string, not a result; ``math.nan`` gives a NaN).
"""

from .. import Namespace
from .._support.modules import arith, ir, llvm, templates, types

libdevice = Namespace(
    "libdevice", "libdevice's routines, e.g. cuda.libdevice.sinf(x); see NVIDIA's libdevice user's guide."
)

# One line per signature: "result:arguments" in the letters below, then the routines'
# short names. A "*" marks an argument libdevice writes through a pointer (a result
# here); a name ending in "_R" stands for its four rounding modes _rd, _rn, _ru, _rz.
LETTERS = {"v": "none", "h": "int16", "i": "int32", "l": "int64", "f": "float32", "d": "float64"}
_TABLE = """
d:d     acos acosh asin asinh atan atanh cbrt ceil cos cosh cospi erf erfc erfcinv erfcx erfinv exp exp10
        exp2 expm1 fabs floor j0 j1 lgamma log log10 log1p log2 logb nearbyint normcdf normcdfinv rcbrt rint
        round rsqrt sin sinh sinpi sqrt tan tanh tgamma trunc y0 y1 drcp_R dsqrt_R
f:f     acosf acoshf asinf asinhf atanf atanhf cbrtf ceilf cosf coshf cospif erfcf erfcinvf erfcxf erff erfinvf
        exp10f exp2f expf expm1f fabsf floorf j0f j1f lgammaf log10f log1pf log2f logbf logf nearbyintf
        normcdff normcdfinvf rcbrtf rintf roundf rsqrtf sinf sinhf sinpif sqrtf tanf tanhf tgammaf truncf
        y0f y1f fast_cosf fast_exp10f fast_expf fast_log10f fast_log2f fast_logf fast_sinf fast_tanf
        frcp_R frsqrt_rn fsqrt_R saturatef
d:dd    atan2 copysign fdim fmax fmin fmod hypot nextafter pow remainder dadd_R ddiv_R dmul_R
f:ff    atan2f copysignf fdimf fmaxf fminf fmodf hypotf nextafterf powf remainderf fadd_R fdiv_R fmul_R
        fsub_R fast_fdividef fast_powf
d:ddd   fma fma_R
f:fff   fmaf fmaf_R
d:di    ldexp powi scalbn
f:fi    ldexpf powif scalbnf
d:id    jn yn
f:if    jnf ynf
i:i     abs brev clz ffs popc
l:l     brevll llabs
i:l     clzll ffsll popcll
i:ii    hadd max min mul24 mulhi rhadd uhadd umax umin umul24 umulhi urhadd
l:ll    llmax llmin mul64hi ullmax ullmin umul64hi
i:iii   byte_perm sad usad
i:d     double2hiint double2loint double2int_R double2uint_R ilogb isfinited isinfd isnand signbitd
i:f     float2int_R float2uint_R float_as_int finitef ilogbf isinff isnanf signbitf
l:d     double2ll_R double2ull_R double_as_longlong llrint llround
l:f     float2ll_R float2ull_R llrintf llroundf
f:d     double2float_R
d:i     int2double_rn uint2double_rn
f:i     int2float_R uint2float_R int_as_float
d:l     ll2double_R ull2double_R longlong_as_double
f:l     ll2float_R ull2float_R
d:ii    hiloint2double
h:f     float2half_rn
f:h     half2float
d:d*i   frexp
f:f*i   frexpf
d:d*d   modf
f:f*f   modff
d:dd*i  remquo
f:ff*i  remquof
v:d*d*d sincos sincospi
v:f*f*f sincosf sincospif fast_sincosf
"""

_ROUNDINGS = ("_rd", "_rn", "_ru", "_rz")


def _parse(table):
    """{short name: (result letter, [(argument letter, is a pointer)])} from the table."""
    routines, shape = {}, None
    for line in table.strip().splitlines():
        words = line.split()
        if ":" in words[0]:
            result, args = words.pop(0).split(":")
            shape = (result, [(letter, args[i - 1 : i] == "*") for i, letter in enumerate(args) if letter != "*"])
        for word in words:
            for name in [word[:-2] + r for r in _ROUNDINGS] if word.endswith("_R") else [word]:
                if name in routines:
                    raise ValueError(f"libdevice table: {name} is listed twice")
                routines[name] = shape
    return routines


ROUTINES = _parse(_TABLE)


def signature(name):
    """Numba-CUDA's signature of ``cuda.libdevice.<name>``: the arguments libdevice reads,
    and its result followed by what it writes through pointers (a tuple if several)."""
    result, args = ROUTINES[name]
    results = [getattr(types, LETTERS[result])] if result != "v" else []
    results += [getattr(types, LETTERS[a]) for a, pointer in args if pointer]
    ret = results[0] if len(results) == 1 else types.Tuple(results)
    return templates.signature(ret, *[getattr(types, LETTERS[a]) for a, pointer in args if not pointer])


def _call(lower, sig, args, name):
    result, shape = ROUTINES[name]
    values, slots = list(args), []
    for i, (letter, pointer) in enumerate(shape):
        if pointer:  # a stack slot in the entry block, read back after the call
            out_type = lower.get_mlir_type(getattr(types, LETTERS[letter]))
            with lower.alloca_insertion_point():
                one = arith.constant(ir.IntegerType.get_signless(32), 1)
                slots.append((llvm.AllocaOp(llvm.PointerType.get(), one, out_type).result, out_type))
            values.insert(i, slots[-1][0])
    result_type = lower.get_mlir_type(getattr(types, LETTERS[result])) if result != "v" else None
    value = lower.call_external(f"__nv_{name}", result_type, values)
    results = ([value] if result_type is not None else []) + [llvm.load(t, slot) for slot, t in slots]
    return results[0] if len(results) == 1 else lower.make_struct(sig.return_type, results)


def _declare(name):
    stub = libdevice.function(name, f"libdevice's __nv_{name}; see NVIDIA's libdevice user's guide.")
    stub.cases(lambda: [signature(name)])
    stub.lower(lambda lower, sig, args: _call(lower, sig, args, name))


for _name in ROUTINES:
    _declare(_name)
