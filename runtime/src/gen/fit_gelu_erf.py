#!/usr/bin/env python3
"""The gelu_erf coefficients of sigmoid_form.h: z(v) = v (c0 + c1 v^2 + c2 v^4 + c3 v^6 + c4 v^8) such that
v * sigmoid(z(v)) is PyTorch's exact gelu, v * Phi(v), to within 3.1e-6 everywhere.

z is fitted to logit(Phi(v)) on [-4.5, 4.5] by weighted least squares, each sample weighted by how much an error in
z moves the gelu there (v Phi (1 - Phi)), then reweighted by its gelu error (Lawson's iteration towards the minimax
fit). Past 4.5 the sigmoid is within 3.4e-6 of 0 or 1 and the positive top coefficient keeps it there. Checked on
[-9, 9] and out to 1e5 on both sides. Needs numpy; prints the coefficients and the largest error."""
from math import erf

import numpy as np

FIT_RANGE, COEFFICIENTS, ROUNDS = 4.5, 5, 60


def z_of(c, v):
    v2, p = v * v, np.zeros_like(v)
    for ci in c[::-1]:
        p = p * v2 + ci
    return v * p


def gelu_from(c, v):
    with np.errstate(over="ignore"):
        return v / (1 + np.exp(-z_of(c, v)))


def main():
    tail = np.geomspace(9, 1e5, 2000)
    v = np.sort(np.concatenate([np.linspace(-9, 9, 90001), tail, -tail]))
    phi = 0.5 * (1 + np.vectorize(erf)(v / np.sqrt(2)))
    exact = v * phi
    fit = np.abs(v) <= FIT_RANGE
    vf, pf = v[fit], np.clip(phi[fit], 1e-300, 1 - 1e-16)
    logit, sensitivity = np.log(pf / (1 - pf)), np.abs(vf) * pf * (1 - pf) + 1e-12
    basis = np.stack([vf ** (2 * k + 1) for k in range(COEFFICIENTS)], 1)
    weight = np.ones_like(vf)
    for _ in range(ROUNDS):
        w = sensitivity * np.sqrt(weight)
        c, *_ = np.linalg.lstsq(basis * w[:, None], logit * w, rcond=None)
        err = np.abs(gelu_from(c, vf) - exact[fit]) + 1e-300
        weight = np.maximum(weight * err / err.mean(), 1e-30)
    err = np.abs(gelu_from(c, v) - exact)
    print("coefficients:", ", ".join(repr(float(x)) for x in c))
    print("max |error| %.2e at v = %.3f; top coefficient positive: %s" % (err.max(), v[err.argmax()], c[-1] > 0))


if __name__ == "__main__":
    main()
