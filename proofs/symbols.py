"""The sympy symbols of the derivations, with their assumptions and units.

One symbol per quantity of the claim catalogue's notation; the runtime's generated functions take
keyword arguments with exactly these names.
"""

from sympy import Symbol

# Time
dt = Symbol("dt", positive=True)  # physics step, s
t = Symbol("t", nonnegative=True)  # time since the start of the step or curve, s
t0 = Symbol("t0", nonnegative=True)  # start of a physics step on a curve, s
t1 = Symbol("t1", nonnegative=True)  # end of a physics step on a curve, s

# Boundary half-planes (B1–B5): projections on the outward unit normal n of an edge
s = Symbol("s", nonnegative=True)  # initial margin b0 - dot(n, x0), m
n_dot_u = Symbol("n_dot_u", real=True)  # support velocity along n, m/s
n_dot_e = Symbol("n_dot_e", real=True)  # edge translation velocity along n, m/s
n_dot_v = Symbol("n_dot_v", real=True)  # relative (solve) velocity along n, m/s
n_dot_v0 = Symbol("n_dot_v0", real=True)  # relative velocity at the step start, m/s
n_dot_v1 = Symbol("n_dot_v1", real=True)  # relative velocity at the step end, m/s
v0 = Symbol("v0", real=True)  # one component of the relative velocity at the step start, m/s
v1 = Symbol("v1", real=True)  # one component of the relative velocity at the step end, m/s

# Stop envelope (S1–S5)
a = Symbol("a", positive=True)  # guaranteed horizontal braking budget, m/s^2
speed = Symbol("speed", nonnegative=True)  # |c|, speed relative to the reference velocity, m/s
n_dot_c = Symbol("n_dot_c", real=True)  # dot(n, c), m/s
cmax = Symbol("cmax", positive=True)  # shared envelope speed Cmax, m/s
vh = Symbol("vh", positive=True)  # horizontal relative speed cap Vh, m/s
carry = Symbol("carry", nonnegative=True)  # |u - r|, m/s
n_dot_r = Symbol("n_dot_r", real=True)  # reference velocity along n, m/s
s_end = Symbol("s_end", real=True)  # margin at the end of the step, m
kfac = Symbol("kfac", positive=True)  # S7 braking envelope factor K, s

# Slope budgets (V1)
grad_sq = Symbol("grad_sq", nonnegative=True)  # |grad h|^2 of a planar patch, 1
k = Symbol("k", positive=True)  # slope factor, 1
surface_cap = Symbol("surface_cap", positive=True)  # speed or acceleration cap along the surface

# Access curve (A1–A5)
d = Symbol("d", nonnegative=True)  # access length, m
vcap = Symbol("vcap", positive=True)  # access speed cap, m/s
accel = Symbol("accel", positive=True)  # access acceleration magnitude, m/s^2

# Steering and Arrive (T2, T3)
max_speed = Symbol("max_speed", positive=True)  # steering speed cap maxSpeed, m/s
max_accel = Symbol("max_accel", positive=True)  # steering acceleration cap maxAccel, m/s^2
gap = Symbol("gap", nonnegative=True)  # |desired - v|, the velocity change steering asks for, m/s
dist = Symbol("dist", nonnegative=True)  # distance from the body to its target, m
stop_range = Symbol("stop_range", positive=True)  # Arrive's stop range, m
slow_radius = Symbol("slow_radius", positive=True)  # slowing radius of the naive linear ramp, m
