"""Test helper: the support-frame curve of one body over the accelerating step and the stop
after it (claims B4, S1, B6), written out from the kinematics, independently of the runtime."""

import numpy as np

DT = 0.1


def rot(angle, p):
    """Points ``p`` (..., 2) turned by ``angle`` (rad) about the origin."""
    c, s = np.cos(angle), np.sin(angle)
    return np.stack([c * p[..., 0] - s * p[..., 1], s * p[..., 0] + c * p[..., 1]], axis=-1)


def relative_curve(x0, v0, v1, a, times):
    """Support-frame points (T, 2) of the step from v0 to v1 over DT, one reaction step holding
    v1, braking at ``a`` to rest on the support, then rest."""
    speed = float(np.hypot(*v1))
    brake = speed / a
    end = x0 + (v0 + v1) * DT / 2.0
    out = []
    for t in times:
        if t <= DT:
            out.append(x0 + v0 * t + (v1 - v0) * t * t / (2.0 * DT))
            continue
        tau = t - DT
        if tau <= DT:
            dist = tau
        elif tau <= DT + brake:
            dist = tau - a * (tau - DT) ** 2 / (2.0 * speed)
        else:
            dist = DT + brake / 2.0
        out.append(end + v1 * dist)
    return np.array(out)
