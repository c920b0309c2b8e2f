"""Rotations of 3-D boxes: matrices checked and made orthonormal, quaternions, yaw turns about the z axis.

A rotation matrix ``R`` holds a box's own axes as its columns: a corner is ``centre + R @ (±dx/2, ±dy/2,
±dz/2)``. Matrices are stored row by row, nine numbers per box.
"""

from __future__ import annotations

import numpy as np

from geoiou._validation import as_float_array, fail
from geoiou.regions.rotated_box import unit_vectors

__all__ = [
    "ORTHONORMAL_TOLERANCE",
    "checked_rotations",
    "quaternion_rotations",
    "yaw_of_quaternions",
    "yaw_rotations",
]

#: How far ``RᵀR`` may be from the identity (largest entry) for a matrix to be taken as a rotation;
#: float32 data written by other tools is about 1e-7 off. A matrix that is off by more than rounding
#: is replaced by the nearest rotation (its polar factor).
ORTHONORMAL_TOLERANCE = 1e-5
#: Off by at most this, a matrix is kept as given (rounding of a rotation computed in float64).
_ROUNDING = 1e-13


def checked_rotations(rotation: np.ndarray, param: str) -> np.ndarray:
    """`rotation` ``(..., 3, 3)`` as proper rotations: refused if not orthonormal within the tolerance or mirrored.

    Matrices off by more than rounding are replaced by the nearest rotation (``U Vᵀ`` of their SVD),
    so that a box is a box (a transposed matrix is its inverse in every kernel).
    """
    if rotation.ndim < 2 or rotation.shape[-2:] != (3, 3):
        raise fail(param, "rotation matrices of shape (..., 3, 3)", f"shape {rotation.shape}")
    error = np.abs(np.swapaxes(rotation, -1, -2) @ rotation - np.eye(3)).max(axis=(-2, -1), initial=0.0)
    bad = ~(error <= ORTHONORMAL_TOLERANCE)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise fail(
            param,
            f"rotation matrices (orthonormal: RᵀR = I within {ORTHONORMAL_TOLERANCE:g})",
            f"{rotation[index].tolist()} at batch index {index}",
        )
    mirrored = np.linalg.det(rotation) < 0
    if mirrored.any():
        index = tuple(int(i) for i in np.argwhere(mirrored)[0])
        raise fail(
            param,
            "proper rotations (determinant +1): a mirrored frame swaps the order of the corners",
            f"{rotation[index].tolist()} at batch index {index}",
        )
    rough = error > _ROUNDING
    if not rough.any():
        return rotation
    fixed = np.array(rotation)
    u, _, vt = np.linalg.svd(rotation[rough])
    fixed[rough] = u @ vt
    return fixed


def quaternion_rotations(quaternion: np.ndarray, param: str, *, scalar_first: bool = True) -> np.ndarray:
    """The rotation matrices ``(..., 3, 3)`` of quaternions ``(..., 4)``, normalized first.

    ``w, x, y, z`` with `scalar_first` (pyquaternion, nuScenes), else ``x, y, z, w`` (SciPy, ROS).
    """
    q = as_float_array(quaternion, param, trailing=4)
    w, x, y, z = np.moveaxis(q, -1, 0) if scalar_first else np.moveaxis(q[..., [3, 0, 1, 2]], -1, 0)
    norm = np.sqrt(w * w + x * x + y * y + z * z)
    zero = ~(norm > 0)
    if zero.any():
        index = tuple(int(i) for i in np.argwhere(zero)[0])
        raise fail(param, "non-zero quaternions", f"{q[index].tolist()} at batch index {index}")
    w, x, y, z = w / norm, x / norm, y / norm, z / norm
    rows = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def yaw_of_quaternions(quaternion: np.ndarray, param: str, *, tolerance: float = 1e-6) -> np.ndarray:
    """The yaw (degrees) of quaternions ``w, x, y, z`` that turn about the z axis only; others are refused."""
    q = as_float_array(quaternion, param, trailing=4)
    w, x, y, z = np.moveaxis(q, -1, 0)
    norm = np.sqrt(w * w + x * x + y * y + z * z)
    tilted = ~(np.hypot(x, y) <= tolerance * norm)
    if tilted.any():
        index = tuple(int(i) for i in np.argwhere(tilted)[0])
        raise fail(
            param,
            "quaternions that turn about the z axis only (x = y = 0); a tilted box is an OrientedBox3D "
            "(OrientedBox3D.from_nuscenes)",
            f"{q[index].tolist()} at batch index {index}",
        )
    yaw: np.ndarray = np.rad2deg(2.0 * np.arctan2(z, w))
    return yaw


def yaw_rotations(yaw: np.ndarray) -> np.ndarray:
    """The rotation matrices ``(..., 3, 3)`` of turns by `yaw` degrees about the z axis (exact at quarter turns)."""
    cos, sin = unit_vectors(np.asarray(yaw, dtype=np.float64))
    zero, one = np.zeros_like(cos), np.ones_like(cos)
    rows = [[cos, -sin, zero], [sin, cos, zero], [zero, zero, one]]
    matrices: np.ndarray = np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)
    return matrices
