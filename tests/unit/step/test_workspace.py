"""The solve slots the safe step writes over from one step to the next: fresh values every
step, and no result of an earlier step changed by a later one."""

import numpy as np

from navproof import boundary as b
from navproof import step as ss
from navproof.orca import crowd as orca_crowd
from navproof.step.constraints import prepare_constraints
from navproof.step.workspace import SlotBuffers, thread_slot_buffers

DT = 0.1


def _crowd_input(seed, n=60):
    """A random crowd of ``n`` agents between two walls, with its ORCA lines."""
    rng = np.random.default_rng(seed)
    crowd = orca_crowd.Crowd(DT)
    x0 = rng.uniform(-3.0, 3.0, (n, 2))
    v0 = rng.normal(0.0, 0.5, (n, 2))
    crowd.add_agents(x0, velocity_mps=v0, radius_m=0.2, time_horizon_s=2.0)
    crowd.set_pref_velocities(rng.normal(0.0, 1.0, (n, 2)))
    normals = np.tile([[[0.0, 1.0], [0.0, -1.0]]], (n, 1, 1))
    edges = b.EdgeSet.build(normals, np.tile([[4.0, 4.0]], (n, 1)))
    support = b.Support.translating(rng.normal(0.0, 0.05, (n, 2)))
    return ss.step_input_from_crowd(crowd, support=support, edges=edges,
                                    vh_mps=np.full(n, 2.0), accel_mps2=np.full(n, 5.0))


def _result_bytes(res):
    m = res.margins
    return [a.tobytes() for a in (res.velocity_mps, res.label, res.flags, res.commit_time_s,
                                  res.cmax_mps, m.edge_curve_m, m.end_stop_m, m.sweep_m,
                                  m.orca_mps)]


def test_slot_views_are_contiguous_grow_and_are_reused():
    buffers = SlotBuffers()
    normal, offset, valid = buffers.slots(5, 7)
    assert normal.shape == (5, 7, 2) and offset.shape == (5, 7) and valid.shape == (5, 7)
    assert normal.dtype == np.float64 and offset.dtype == np.float64 and valid.dtype == bool
    assert all(a.flags.c_contiguous for a in (normal, offset, valid))
    smaller = buffers.slots(3, 4)
    assert all(np.shares_memory(new, old)
               for new, old in zip(smaller, (normal, offset, valid), strict=True))
    assert buffers.slots(0, 3)[0].shape == (0, 3, 2)
    grown = buffers.slots(9, 9)
    assert grown[1].shape == (9, 9) and not np.shares_memory(grown[1], offset)
    assert thread_slot_buffers() is thread_slot_buffers()


def test_prepared_slots_written_over_equal_fresh_ones():
    buffers = SlotBuffers()
    for seed in range(4):
        inp = ss.check_valid_step_input(_crowd_input(seed))
        # what the previous use left must not show through
        for arr in buffers.slots(inp.count, 4 * 2 + inp.orca_valid.shape[1]):
            arr.fill(np.nan if arr.dtype == np.float64 else True)
        fresh = prepare_constraints(inp).solve_planes
        reused = prepare_constraints(inp, slots=buffers).solve_planes
        for new, old in ((reused.normal, fresh.normal), (reused.offset, fresh.offset),
                         (reused.valid, fresh.valid)):
            assert new.tobytes() == old.tobytes()


def test_a_later_step_never_changes_an_earlier_result():
    first_inp, second_inp = _crowd_input(11), _crowd_input(12, n=80)
    first = ss.solve_safe_step(first_inp)
    before = _result_bytes(first)
    second = ss.solve_safe_step(second_inp)
    assert _result_bytes(first) == before
    assert _result_bytes(ss.solve_safe_step(first_inp)) == before
    assert _result_bytes(ss.solve_safe_step(second_inp)) == _result_bytes(second)
