# DO NOT EDIT: generated from the sympy derivations in navproof.proofs.
# Regenerate with `navproof generate` (or `make generate`); a test and
# `navproof prove` fail when this file differs from a fresh generation.
# expressions-sha256: fab747cad2531a8f7497f0ba170eb1698e70a71d7943250515045b189b42239d
"""Closed-form navigation formulas generated from the proofs (vectorised, numpy; a few also of single floats for compiled loops)."""

import functools

import numpy

__all__ = [
    "step_halfplane_offset",
    "constant_velocity_margin",
    "accel_step_v1_bound",
    "accel_step_displacement",
    "accel_margin",
    "accel_extremum_time",
    "stop_distance",
    "stop_displacement_factor",
    "normal_stop_displacement",
    "stop_trajectory_factor",
    "necessary_normal_bound",
    "envelope_speed_cap",
    "stop_target_margin",
    "linear_envelope_bound",
    "braked_speed",
    "brake_envelope_factor",
    "brake_envelope_offset",
    "brake_envelope_margin",
    "rigid_second_derivative_bound",
    "interpolation_excess_bound",
    "rigid_rounding_slack",
    "pivot_offset_bound",
    "pivot_speed_bound",
    "pivot_accel_bound",
    "accel_curve_offset_bound",
    "accel_curve_speed_bound",
    "accel_curve_accel_bound",
    "stop_curve_offset_bound",
    "hold_drift_sup",
    "slope_factor",
    "horizontal_cap",
    "access_peak_speed",
    "access_accel_time",
    "access_cruise_time",
    "access_total_time",
    "access_speed",
    "access_position",
    "access_step_displacement",
    "interrupted_stop_point",
    "orca_cutoff_offset",
    "orca_cutoff_change_scale",
    "orca_leg_direction_x",
    "orca_leg_direction_y",
    "orca_leg_change",
    "orca_line_point",
    "orca_relative_distance_sq",
    "orca_closest_approach_time",
    "orca_pair_share",
    "steering_change",
    "arrive_speed",
    "discrete_brake_distance",
    "linear_ramp_speed",
    "brake_envelope_factor_scalar",
    "steering_change_scalar",
    "arrive_speed_scalar",
]


def step_halfplane_offset(*, s, dt, n_dot_e, n_dot_u):
    """Offset of the step half-plane dot(n, v) <= s/dt + dot(n, e - u) [m/s].

    Claim: B1, B3. Derived in navproof.proofs as ``n_dot_e - n_dot_u + s/dt``.
    """
    return n_dot_e - n_dot_u + s/dt


def constant_velocity_margin(*, s, t, n_dot_e, n_dot_u, n_dot_v):
    """Signed edge margin at time t of a constant-velocity step (>= 0 inside) [m].

    Claim: B1, B2. Derived in navproof.proofs as ``n_dot_e*t + s - t*(n_dot_u + n_dot_v)``.
    """
    return n_dot_e*t + s - t*(n_dot_u + n_dot_v)


def accel_step_v1_bound(*, s, dt, n_dot_e, n_dot_u, n_dot_v0):
    """Upper bound on dot(n, v1) for the step end of a linearly accelerating step [m/s].

    Claim: B4. Derived in navproof.proofs as ``2*n_dot_e - 2*n_dot_u - n_dot_v0 + 2*s/dt``.
    """
    return 2*n_dot_e - 2*n_dot_u - n_dot_v0 + 2*s/dt


def accel_step_displacement(*, t, dt, v0, v1):
    """Displacement relative to the support at time t of a step ramping from v0 to v1 (per axis) [m].

    Claim: B4, B6, W1. Derived in navproof.proofs as ``t*v0 + t**2*(-v0 + v1)/(2*dt)``.
    """
    return t*v0 + (1/2)*t**2*(-v0 + v1)/dt


def accel_margin(*, s, t, dt, n_dot_e, n_dot_u, n_dot_v0, n_dot_v1):
    """Signed edge margin at time t of a step accelerating linearly from v0 to v1 [m].

    Claim: B4, B5. Derived in navproof.proofs as ``n_dot_e*t - n_dot_u*t - n_dot_v0*t + s + n_dot_v0*t**2/(2*dt) - n_dot_v1*t**2/(2*dt)``.
    """
    return n_dot_e*t - n_dot_u*t - n_dot_v0*t + s + (1/2)*n_dot_v0*t**2/dt - 1/2*n_dot_v1*t**2/dt


def accel_extremum_time(*, dt, n_dot_e, n_dot_u, n_dot_v0, n_dot_v1):
    """Time t* where the accelerating step's margin is extremal (undefined when v1 = v0) [s].

    Claim: B5. Derived in navproof.proofs as ``dt*(-n_dot_e + n_dot_u + n_dot_v0)/(n_dot_v0 - n_dot_v1)``.
    """
    return dt*(-n_dot_e + n_dot_u + n_dot_v0)/(n_dot_v0 - n_dot_v1)


def stop_distance(*, speed, dt, a):
    """Distance travelled holding a speed for one reaction step, then braking at a to rest [m].

    Claim: S1, A5. Derived in navproof.proofs as ``dt*speed + speed**2/(2*a)``.
    """
    return dt*speed + (1/2)*speed**2/a


def stop_displacement_factor(*, speed, dt, a):
    """Factor dt + |c|/(2a): displacement of the reaction-and-brake stop per unit of c [s].

    Claim: S1. Derived in navproof.proofs as ``dt + speed/(2*a)``.
    """
    return dt + (1/2)*speed/a


def normal_stop_displacement(*, n_dot_c, speed, dt, a):
    """Normal displacement dot(n, c) (dt + |c|/(2a)) of the whole reaction-and-brake stop [m].

    Claim: S1, S3. Derived in navproof.proofs as ``n_dot_c*(dt + speed/(2*a))``.
    """
    return n_dot_c*(dt + (1/2)*speed/a)


def stop_trajectory_factor(*, t, dt, a, speed):
    """Displacement per unit of c at time t of the hold-then-brake stop trajectory [s].

    Claim: S1, S3. Derived in navproof.proofs as ``Piecewise((t, dt >= t), (-a*(-dt + t)**2/(2*speed) + t, t <= dt + speed/a), (dt + speed/(2*a), True))``.
    """
    return numpy.select([numpy.greater_equal(dt, t),numpy.less_equal(t, dt + speed/a),True], [t,-1/2*a*(-dt + t)**2/speed + t,dt + (1/2)*speed/a], default=numpy.nan)


def necessary_normal_bound(*, s, dt, a):
    """Largest dot(n, c) whose stop fits in the margin s: sqrt((a dt)^2 + 2 a s) - a dt [m/s].

    Claim: S2. Derived in navproof.proofs as ``sqrt(a)*sqrt(a*dt**2 + 2*s) - a*dt``.
    """
    return numpy.sqrt(a)*numpy.sqrt(a*dt**2 + 2*s) - a*dt


def envelope_speed_cap(*, vh, carry):
    """Shared envelope speed Cmax = Vh + |u - r| [m/s].

    Claim: S4. Derived in navproof.proofs as ``carry + vh``.
    """
    return carry + vh


def stop_target_margin(*, vh, carry):
    """Speed margin Vh - |r - u| of the stop target (negative: carry exceeds cancel capacity) [m/s].

    Claim: R2. Derived in navproof.proofs as ``-carry + vh``.
    """
    return -carry + vh


def linear_envelope_bound(*, s, dt, a, cmax):
    """Offset of the stop half-plane dot(n, u + v - r) <= s / (dt + Cmax/(2a)) [m/s].

    Claim: S3, S5. Derived in navproof.proofs as ``2*a*s/(2*a*dt + cmax)``.
    """
    return 2*a*s/(2*a*dt + cmax)


def braked_speed(*, speed, dt, a):
    """Speed after one step of the strongest braking: max(|c| - a dt, 0) [m/s].

    Claim: S7, F2. Derived in navproof.proofs as ``Piecewise((-a*dt + speed, speed > a*dt), (0, True))``.
    """
    return numpy.select([numpy.greater(speed, a*dt),True], [-a*dt + speed,0], default=numpy.nan)


def brake_envelope_factor(*, cmax, dt, a):
    """Factor K = max(Cmax/a - dt/2, dt/2) of the discrete braking envelope [s].

    Claim: S7. Derived in navproof.proofs as ``Piecewise((-dt/2 + cmax/a, cmax > a*dt), (dt/2, True))``.
    """
    return numpy.select([numpy.greater(cmax, a*dt),True], [-1/2*dt + cmax/a,(1/2)*dt], default=numpy.nan)


def brake_envelope_offset(*, s, dt, n_dot_e, n_dot_u, n_dot_v0, n_dot_r, kfac):
    """Offset of the S7 half-plane dot(n, v1) <= q: step-end margin >= K dot(n, u + v1 - r) [m/s].

    Claim: S7, B4. Derived in navproof.proofs as ``(2*dt*n_dot_e - 2*dt*n_dot_u - dt*n_dot_v0 + 2*kfac*n_dot_r - 2*kfac*n_dot_u + 2*s)/(dt + 2*kfac)``.
    """
    return (2*dt*n_dot_e - 2*dt*n_dot_u - dt*n_dot_v0 + 2*kfac*n_dot_r - 2*kfac*n_dot_u + 2*s)/(dt + 2*kfac)


def brake_envelope_margin(*, s_end, n_dot_c, kfac):
    """Signed S7 margin: step-end margin minus K dot(n, c1) [m].

    Claim: S7. Derived in navproof.proofs as ``-kfac*n_dot_c + s_end``.
    """
    return -kfac*n_dot_c + s_end


def rigid_second_derivative_bound(*, omega_e, d_omega, p_max, dp_max, ddp_max, q_max, dq_max, ddq_max):
    """Bound M2 of |f''| of the local-frame margin excess f = m1.P + m2.Q [m/s^2].

    Claim: B6. Derived in navproof.proofs as ``d_omega**2*q_max + 2*d_omega*dq_max + ddp_max + ddq_max + 2*dp_max*omega_e + omega_e**2*p_max``.
    """
    return d_omega**2*q_max + 2*d_omega*dq_max + ddp_max + ddq_max + 2*dp_max*omega_e + omega_e**2*p_max


def interpolation_excess_bound(*, m2, h):
    """Largest excess of a C^2 function with |f''| <= M2 over its chord on a piece of width h [m].

    Claim: B6. Derived in navproof.proofs as ``h**2*m2/8``.
    """
    return (1/8)*h**2*m2


def rigid_rounding_slack(*, ulp, offset_abs, q_max, p_max):
    """Float64 rounding slack added to the certified local-frame bound [m].

    Claim: B6. Derived in navproof.proofs as ``4*ulp*(offset_abs + p_max + q_max + 1)``.
    """
    return 4*ulp*(offset_abs + p_max + q_max + 1)


def pivot_offset_bound(*, p0, dw, d_accel, horizon):
    """Bound of |P(t)| = |c_s - c_e + (w_s - w_e) t + (alpha_s - alpha_e) t^2 / 2| for t in [0, horizon] [m].

    Claim: B6. Derived in navproof.proofs as ``d_accel*horizon**2/2 + dw*horizon + p0``.
    """
    return (1/2)*d_accel*horizon**2 + dw*horizon + p0


def pivot_speed_bound(*, dw, d_accel, horizon):
    """Bound of |P'(t)| for t in [0, horizon] [m/s].

    Claim: B6. Derived in navproof.proofs as ``d_accel*horizon + dw``.
    """
    return d_accel*horizon + dw


def pivot_accel_bound(*, d_accel):
    """Bound of |P''(t)| (constant) [m/s^2].

    Claim: B6. Derived in navproof.proofs as ``d_accel``.
    """
    return d_accel


def accel_curve_offset_bound(*, q0, v0_norm, dv_norm, dt):
    """Bound of |Q(t)| over the accelerating step from |Q(0)|, |v0|, |v1 - v0| [m].

    Claim: B6. Derived in navproof.proofs as ``dt*dv_norm/2 + dt*v0_norm + q0``.
    """
    return (1/2)*dt*dv_norm + dt*v0_norm + q0


def accel_curve_speed_bound(*, v0_norm, dv_norm):
    """Bound of |Q'(t)| over the accelerating step [m/s].

    Claim: B6. Derived in navproof.proofs as ``dv_norm + v0_norm``.
    """
    return dv_norm + v0_norm


def accel_curve_accel_bound(*, dv_norm, dt):
    """Bound of |Q''(t)| over the accelerating step [m/s^2].

    Claim: B6. Derived in navproof.proofs as ``dv_norm/dt``.
    """
    return dv_norm/dt


def stop_curve_offset_bound(*, q0, speed, dt, a):
    """Bound of |Q| over the hold-then-brake stop from |Q| at its start [m].

    Claim: B6, S1. Derived in navproof.proofs as ``q0 + speed*(dt + speed/(2*a))``.
    """
    return q0 + speed*(dt + (1/2)*speed/a)


def hold_drift_sup(*, n_dot_p, n_dot_dw, n_dot_da):
    """Supremum over t >= 0 of dot(n, P(t)) = dot(n, p0) + dot(n, dw) t + dot(n, da) t^2 / 2 (valid where dot(n, da) < 0, or dot(n, da) = 0 and dot(n, dw) <= 0) [m].

    Claim: B6, R3. Derived in navproof.proofs as ``Piecewise((n_dot_p - n_dot_dw**2/(2*n_dot_da), (n_dot_dw > 0) & (n_dot_da < 0)), (n_dot_p, True))``.
    """
    return numpy.select([numpy.logical_and.reduce((numpy.greater(n_dot_dw, 0),numpy.less(n_dot_da, 0))),True], [n_dot_p - 1/2*n_dot_dw**2/n_dot_da,n_dot_p], default=numpy.nan)


def slope_factor(*, grad_sq):
    """Slope factor k = sqrt(1 + |grad h|^2) of a planar patch [1].

    Claim: V1. Derived in navproof.proofs as ``sqrt(grad_sq + 1)``.
    """
    return numpy.sqrt(grad_sq + 1)


def horizontal_cap(*, surface_cap, k):
    """Horizontal cap (speed or acceleration) Vh = V / k of a surface cap on a patch [m/s or m/s^2].

    Claim: V1. Derived in navproof.proofs as ``surface_cap/k``.
    """
    return surface_cap/k


def access_peak_speed(*, d, vcap, accel):
    """Peak speed of the access curve: sqrt(accel d) when short, vCap when long [m/s].

    Claim: A1, A2. Derived in navproof.proofs as ``Piecewise((sqrt(accel)*sqrt(d), d <= vcap**2/accel), (vcap, True))``.
    """
    return numpy.select([numpy.less_equal(d, vcap**2/accel),True], [numpy.sqrt(accel)*numpy.sqrt(d),vcap], default=numpy.nan)


def access_accel_time(*, d, vcap, accel):
    """Duration of the accelerating (and of the braking) phase of the access curve [s].

    Claim: A1, A2. Derived in navproof.proofs as ``Piecewise((sqrt(d)/sqrt(accel), d <= vcap**2/accel), (vcap/accel, True))``.
    """
    return numpy.select([numpy.less_equal(d, vcap**2/accel),True], [numpy.sqrt(d)/numpy.sqrt(accel),vcap/accel], default=numpy.nan)


def access_cruise_time(*, d, vcap, accel):
    """Duration of the cruise at vCap: (d - vCap^2/accel)/vCap when long, 0 when short [s].

    Claim: A2. Derived in navproof.proofs as ``Piecewise((0, d <= vcap**2/accel), (d/vcap - vcap/accel, True))``.
    """
    return numpy.select([numpy.less_equal(d, vcap**2/accel),True], [0,d/vcap - vcap/accel], default=numpy.nan)


def access_total_time(*, d, vcap, accel):
    """Total duration of the access curve (2 sqrt(d/accel) when short) [s].

    Claim: A1, A2. Derived in navproof.proofs as ``Piecewise((0, d <= vcap**2/accel), (d/vcap - vcap/accel, True)) + 2*Piecewise((sqrt(d)/sqrt(accel), d <= vcap**2/accel), (vcap/accel, True))``.
    """
    return numpy.select([numpy.less_equal(d, vcap**2/accel),True], [0,d/vcap - vcap/accel], default=numpy.nan) + 2*numpy.select([numpy.less_equal(d, vcap**2/accel),True], [numpy.sqrt(d)/numpy.sqrt(accel),vcap/accel], default=numpy.nan)


def access_speed(*, t, d, vcap, accel):
    """Speed along the access curve at time t (0 before the start of time and after the end) [m/s].

    Claim: A1, A2. Derived in navproof.proofs as ``Piecewise((Piecewise((accel*t, t <= sqrt(d)/sqrt(accel)), (accel*(-t + 2*sqrt(d)/sqrt(accel)), t <= 2*sqrt(d)/sqrt(accel)), (0, True)), d <= vcap**2/accel), (Piecewise((accel*t, t <= vcap/accel), (vcap, t <= d/vcap), (accel*(d/vcap - t + vcap/accel), t <= d/vcap + vcap/accel), (0, True)), True))``.
    """
    return numpy.select([numpy.less_equal(d, vcap**2/accel),True], [numpy.select([numpy.less_equal(t, numpy.sqrt(d)/numpy.sqrt(accel)),numpy.less_equal(t, 2*numpy.sqrt(d)/numpy.sqrt(accel)),True], [accel*t,accel*(-t + 2*numpy.sqrt(d)/numpy.sqrt(accel)),0], default=numpy.nan),numpy.select([numpy.less_equal(t, vcap/accel),numpy.less_equal(t, d/vcap),numpy.less_equal(t, d/vcap + vcap/accel),True], [accel*t,vcap,accel*(d/vcap - t + vcap/accel),0], default=numpy.nan)], default=numpy.nan)


def access_position(*, t, d, vcap, accel):
    """Distance travelled along the access curve at time t, in [0, d] [m].

    Claim: A1, A2, A3. Derived in navproof.proofs as ``Piecewise((Piecewise((accel*t**2/2, t <= sqrt(d)/sqrt(accel)), (2*sqrt(accel)*sqrt(d)*t - accel*t**2/2 - d, t <= 2*sqrt(d)/sqrt(accel)), (d, True)), d <= vcap**2/accel), (Piecewise((accel*t**2/2, t <= vcap/accel), (t*vcap - vcap**2/(2*accel), t <= d/vcap), (-accel*d**2/(2*vcap**2) + accel*d*t/vcap - accel*t**2/2 + t*vcap - vcap**2/(2*accel), t <= d/vcap + vcap/accel), (d, True)), True))``.
    """
    return numpy.select([numpy.less_equal(d, vcap**2/accel),True], [numpy.select([numpy.less_equal(t, numpy.sqrt(d)/numpy.sqrt(accel)),numpy.less_equal(t, 2*numpy.sqrt(d)/numpy.sqrt(accel)),True], [(1/2)*accel*t**2,2*numpy.sqrt(accel)*numpy.sqrt(d)*t - 1/2*accel*t**2 - d,d], default=numpy.nan),numpy.select([numpy.less_equal(t, vcap/accel),numpy.less_equal(t, d/vcap),numpy.less_equal(t, d/vcap + vcap/accel),True], [(1/2)*accel*t**2,t*vcap - 1/2*vcap**2/accel,-1/2*accel*d**2/vcap**2 + accel*d*t/vcap - 1/2*accel*t**2 + t*vcap - 1/2*vcap**2/accel,d], default=numpy.nan)], default=numpy.nan)


def access_step_displacement(*, t0, t1, d, vcap, accel):
    """Exact displacement along the access curve over the physics step [t0, t1] [m].

    Claim: A3. Derived in navproof.proofs as ``-Piecewise((Piecewise((accel*t0**2/2, t0 <= sqrt(d)/sqrt(accel)), (2*sqrt(accel)*sqrt(d)*t0 - accel*t0**2/2 - d, t0 <= 2*sqrt(d)/sqrt(accel)), (d, True)), d <= vcap**2/accel), (Piecewise((accel*t0**2/2, t0 <= vcap/accel), (t0*vcap - vcap**2/(2*accel), t0 <= d/vcap), (-accel*d**2/(2*vcap**2) + accel*d*t0/vcap - accel*t0**2/2 + t0*vcap - vcap**2/(2*accel), t0 <= d/vcap + vcap/accel), (d, True)), True)) + Piecewise((Piecewise((accel*t1**2/2, t1 <= sqrt(d)/sqrt(accel)), (2*sqrt(accel)*sqrt(d)*t1 - accel*t1**2/2 - d, t1 <= 2*sqrt(d)/sqrt(accel)), (d, True)), d <= vcap**2/accel), (Piecewise((accel*t1**2/2, t1 <= vcap/accel), (t1*vcap - vcap**2/(2*accel), t1 <= d/vcap), (-accel*d**2/(2*vcap**2) + accel*d*t1/vcap - accel*t1**2/2 + t1*vcap - vcap**2/(2*accel), t1 <= d/vcap + vcap/accel), (d, True)), True))``.
    """
    return -numpy.select([numpy.less_equal(d, vcap**2/accel),True], [numpy.select([numpy.less_equal(t0, numpy.sqrt(d)/numpy.sqrt(accel)),numpy.less_equal(t0, 2*numpy.sqrt(d)/numpy.sqrt(accel)),True], [(1/2)*accel*t0**2,2*numpy.sqrt(accel)*numpy.sqrt(d)*t0 - 1/2*accel*t0**2 - d,d], default=numpy.nan),numpy.select([numpy.less_equal(t0, vcap/accel),numpy.less_equal(t0, d/vcap),numpy.less_equal(t0, d/vcap + vcap/accel),True], [(1/2)*accel*t0**2,t0*vcap - 1/2*vcap**2/accel,-1/2*accel*d**2/vcap**2 + accel*d*t0/vcap - 1/2*accel*t0**2 + t0*vcap - 1/2*vcap**2/accel,d], default=numpy.nan)], default=numpy.nan) + numpy.select([numpy.less_equal(d, vcap**2/accel),True], [numpy.select([numpy.less_equal(t1, numpy.sqrt(d)/numpy.sqrt(accel)),numpy.less_equal(t1, 2*numpy.sqrt(d)/numpy.sqrt(accel)),True], [(1/2)*accel*t1**2,2*numpy.sqrt(accel)*numpy.sqrt(d)*t1 - 1/2*accel*t1**2 - d,d], default=numpy.nan),numpy.select([numpy.less_equal(t1, vcap/accel),numpy.less_equal(t1, d/vcap),numpy.less_equal(t1, d/vcap + vcap/accel),True], [(1/2)*accel*t1**2,t1*vcap - 1/2*vcap**2/accel,-1/2*accel*d**2/vcap**2 + accel*d*t1/vcap - 1/2*accel*t1**2 + t1*vcap - 1/2*vcap**2/accel,d], default=numpy.nan)], default=numpy.nan)


def interrupted_stop_point(*, t, dt, d, vcap, accel):
    """Stop point along the curve when interrupted at t, held for dt, then braked at accel [m].

    Claim: A4, A5. Derived in navproof.proofs as ``dt*Piecewise((Piecewise((accel*t, t <= sqrt(d)/sqrt(accel)), (accel*(-t + 2*sqrt(d)/sqrt(accel)), t <= 2*sqrt(d)/sqrt(accel)), (0, True)), d <= vcap**2/accel), (Piecewise((accel*t, t <= vcap/accel), (vcap, t <= d/vcap), (accel*(d/vcap - t + vcap/accel), t <= d/vcap + vcap/accel), (0, True)), True)) + Piecewise((Piecewise((accel*t**2/2, t <= sqrt(d)/sqrt(accel)), (2*sqrt(accel)*sqrt(d)*t - accel*t**2/2 - d, t <= 2*sqrt(d)/sqrt(accel)), (d, True)), d <= vcap**2/accel), (Piecewise((accel*t**2/2, t <= vcap/accel), (t*vcap - vcap**2/(2*accel), t <= d/vcap), (-accel*d**2/(2*vcap**2) + accel*d*t/vcap - accel*t**2/2 + t*vcap - vcap**2/(2*accel), t <= d/vcap + vcap/accel), (d, True)), True)) + Piecewise((Piecewise((accel**2*t**2, t <= sqrt(d)/sqrt(accel)), (accel**2*(-t + 2*sqrt(d)/sqrt(accel))**2, t <= 2*sqrt(d)/sqrt(accel)), (0, True)), d <= vcap**2/accel), (Piecewise((accel**2*t**2, t <= vcap/accel), (vcap**2, t <= d/vcap), (accel**2*(d/vcap - t + vcap/accel)**2, t <= d/vcap + vcap/accel), (0, True)), True))/(2*accel)``.
    """
    return dt*numpy.select([numpy.less_equal(d, vcap**2/accel),True], [numpy.select([numpy.less_equal(t, numpy.sqrt(d)/numpy.sqrt(accel)),numpy.less_equal(t, 2*numpy.sqrt(d)/numpy.sqrt(accel)),True], [accel*t,accel*(-t + 2*numpy.sqrt(d)/numpy.sqrt(accel)),0], default=numpy.nan),numpy.select([numpy.less_equal(t, vcap/accel),numpy.less_equal(t, d/vcap),numpy.less_equal(t, d/vcap + vcap/accel),True], [accel*t,vcap,accel*(d/vcap - t + vcap/accel),0], default=numpy.nan)], default=numpy.nan) + numpy.select([numpy.less_equal(d, vcap**2/accel),True], [numpy.select([numpy.less_equal(t, numpy.sqrt(d)/numpy.sqrt(accel)),numpy.less_equal(t, 2*numpy.sqrt(d)/numpy.sqrt(accel)),True], [(1/2)*accel*t**2,2*numpy.sqrt(accel)*numpy.sqrt(d)*t - 1/2*accel*t**2 - d,d], default=numpy.nan),numpy.select([numpy.less_equal(t, vcap/accel),numpy.less_equal(t, d/vcap),numpy.less_equal(t, d/vcap + vcap/accel),True], [(1/2)*accel*t**2,t*vcap - 1/2*vcap**2/accel,-1/2*accel*d**2/vcap**2 + accel*d*t/vcap - 1/2*accel*t**2 + t*vcap - 1/2*vcap**2/accel,d], default=numpy.nan)], default=numpy.nan) + (1/2)*numpy.select([numpy.less_equal(d, vcap**2/accel),True], [numpy.select([numpy.less_equal(t, numpy.sqrt(d)/numpy.sqrt(accel)),numpy.less_equal(t, 2*numpy.sqrt(d)/numpy.sqrt(accel)),True], [accel**2*t**2,accel**2*(-t + 2*numpy.sqrt(d)/numpy.sqrt(accel))**2,0], default=numpy.nan),numpy.select([numpy.less_equal(t, vcap/accel),numpy.less_equal(t, d/vcap),numpy.less_equal(t, d/vcap + vcap/accel),True], [accel**2*t**2,vcap**2,accel**2*(d/vcap - t + vcap/accel)**2,0], default=numpy.nan)], default=numpy.nan)/accel


def orca_cutoff_offset(*, rel_v, rel_p, inv_tau):
    """One component of w = v - p/tau, the relative velocity seen from the cut-off centre [m/s].

    Claim: O3, O6. Derived in navproof.proofs as ``-inv_tau*rel_p + rel_v``.
    """
    return -inv_tau*rel_p + rel_v


def orca_cutoff_change_scale(*, comb_r, inv_tau, w_len):
    """Signed length of the smallest change u = scale * w/|w| onto the cut-off circle [m/s].

    Claim: O3, O6. Derived in navproof.proofs as ``comb_r*inv_tau - w_len``.
    """
    return comb_r*inv_tau - w_len


def orca_leg_direction_x(*, rel_px, rel_py, comb_r, leg_len, side, dist_sq):
    """x of the unit leg direction (side +1 left, -1 right; disk on its right) [1].

    Claim: O3. Derived in navproof.proofs as ``(-comb_r*rel_py + leg_len*rel_px*side)/dist_sq``.
    """
    return (-comb_r*rel_py + leg_len*rel_px*side)/dist_sq


def orca_leg_direction_y(*, rel_px, rel_py, comb_r, leg_len, side, dist_sq):
    """y of the unit leg direction (side +1 left, -1 right; disk on its right) [1].

    Claim: O3. Derived in navproof.proofs as ``(comb_r*rel_px + leg_len*rel_py*side)/dist_sq``.
    """
    return (comb_r*rel_px + leg_len*rel_py*side)/dist_sq


def orca_leg_change(*, v_dot_d, direction, rel_v):
    """One component of the smallest change u = (v.d) d - v onto a leg [m/s].

    Claim: O3. Derived in navproof.proofs as ``direction*v_dot_d - rel_v``.
    """
    return direction*v_dot_d - rel_v


def orca_line_point(*, own_v, share, change):
    """One component of the ORCA line point v_own + share * u [m/s].

    Claim: O3, O7. Derived in navproof.proofs as ``change*share + own_v``.
    """
    return change*share + own_v


def orca_relative_distance_sq(*, p_sq, p_dot_x, x_sq, time_s):
    """Squared distance |p - x t|^2 of a pair at time t of constant relative motion [m^2].

    Claim: O3, O6. Derived in navproof.proofs as ``-2*p_dot_x*time_s + p_sq + time_s**2*x_sq``.
    """
    return -2*p_dot_x*time_s + p_sq + time_s**2*x_sq


def orca_closest_approach_time(*, p_dot_x, x_sq):
    """Time (p.x)/|x|^2 where the pair's distance is stationary (clamp to the horizon) [s].

    Claim: O3. Derived in navproof.proofs as ``p_dot_x/x_sq``.
    """
    return p_dot_x/x_sq


def orca_pair_share(*, weight_own, weight_other):
    """Share of a cooperative pair's correction from the two responsibility weights [1].

    Claim: O7. Derived in navproof.proofs as ``weight_own/(weight_other + weight_own)``.
    """
    return weight_own/(weight_other + weight_own)


def steering_change(*, gap, max_accel, dt):
    """Velocity change of one clamped steering step towards the desired velocity [m/s].

    Claim: T2. Derived in navproof.proofs as ``Min(gap, dt*max_accel)``.
    """
    return functools.reduce(numpy.minimum, [gap, dt*max_accel])


def arrive_speed(*, dist, stop_range, max_speed, max_accel, dt):
    """Arrive speed curve: the speed the discrete follower can still brake from to rest at the stop range [m/s].

    Claim: T3. Derived in navproof.proofs as ``Piecewise((0, dist <= stop_range), (Min(max_speed, -dt*max_accel/2 + sqrt(max_accel)*sqrt(dt**2*max_accel + 8*Max(0, dist - stop_range))/2), True))``.
    """
    return numpy.select([numpy.less_equal(dist, stop_range),True], [0,functools.reduce(numpy.minimum, [max_speed, -1/2*dt*max_accel + (1/2)*numpy.sqrt(max_accel)*numpy.sqrt(dt**2*max_accel + 8*functools.reduce(numpy.maximum, [0, dist - stop_range]))])], default=numpy.nan)


def discrete_brake_distance(*, speed, max_accel, dt):
    """Distance the discrete follower travels braking at maxAccel from speed w (w a whole number of maxAccel dt) [m].

    Claim: T3. Derived in navproof.proofs as ``speed*(-dt*max_accel + speed)/(2*max_accel)``.
    """
    return (1/2)*speed*(-dt*max_accel + speed)/max_accel


def linear_ramp_speed(*, dist, max_speed, slow_radius):
    """The naive linear ramp maxSpeed dist / slowRadius (refuted by T3; never used to steer) [m/s].

    Claim: T3. Derived in navproof.proofs as ``Min(max_speed, dist*max_speed/slow_radius)``.
    """
    return functools.reduce(numpy.minimum, [max_speed, dist*max_speed/slow_radius])


def brake_envelope_factor_scalar(*, cmax, dt, a):
    """:func:`brake_envelope_factor` of single floats, for compiled loops [s].

    Claim: S7. The same expression with its conditions and numpy's minimum and
    maximum written out.
    """
    return ((-1/2*dt + cmax/a) if (cmax > a*dt) else ((1/2)*dt))


def steering_change_scalar(*, gap, max_accel, dt):
    """:func:`steering_change` of single floats, for compiled loops [m/s].

    Claim: T2. The same expression with its conditions and numpy's minimum and
    maximum written out.
    """
    return _numpy_minimum(gap, dt*max_accel)


def arrive_speed_scalar(*, dist, stop_range, max_speed, max_accel, dt):
    """:func:`arrive_speed` of single floats, for compiled loops [m/s].

    Claim: T3. The same expression with its conditions and numpy's minimum and
    maximum written out.
    """
    return ((0) if (dist <= stop_range) else (_numpy_minimum(max_speed, -1/2*dt*max_accel + (1/2)*numpy.sqrt(max_accel)*numpy.sqrt(dt**2*max_accel + 8*_numpy_maximum(0, dist - stop_range)))))


def _numpy_minimum(a, b):
    """numpy.minimum of two floats, to the bit (compiled loops)."""
    return a if a < b or a != a else b


def _numpy_maximum(a, b):
    """numpy.maximum of two floats, to the bit (compiled loops)."""
    return a if a > b or a != a else b
