#version 450
// Scene-change detection, step 2 (one workgroup): compares the histograms of
// the previous and the current frame, section by section. Each section's
// histograms are normalised, smoothed (5-tap binomial), and compared by the
// symmetric Kullback-Leibler divergence d, mapped to 1 - exp(-d). A cut is
// declared when the mean over the 9 sections exceeds CUT_THRESHOLD. The result
// goes to the state buffer (read by the interpolation) and to the readback
// ring (read by the host a few frames later, tagged with the frame serial).
#include "common.glsl"

layout(local_size_x = HIST_BINS) in;

layout(set = 0, binding = B_HIST, std430) readonly buffer Hist { uint h[]; } u_hist;
layout(set = 0, binding = B_STATE, std430) buffer State { uint cut; } u_state;
layout(set = 0, binding = B_READBACK, std430) buffer Readback { uint r[]; } u_rb;

#define CUT_THRESHOLD 0.45

shared float s_a[HIST_BINS];
shared float s_b[HIST_BINS];
shared float s_sum[HIST_BINS];

float reduce_sum(float v) {
    uint i = gl_LocalInvocationIndex;
    s_sum[i] = v;
    barrier();
    for (uint s = HIST_BINS / 2; s > 0u; s >>= 1u) {
        if (i < s) s_sum[i] += s_sum[i + s];
        barrier();
    }
    float r = s_sum[0];
    barrier();
    return r;
}

float smoothed(uint region_base, int bin) {
    float acc = 0.0;
    const float w[5] = float[5](1.0, 4.0, 6.0, 4.0, 1.0);
    for (int k = -2; k <= 2; k++) {
        int b = clamp(bin + k, 0, HIST_BINS - 1);
        acc += w[k + 2] * float(u_hist.h[region_base + uint(b)]);
    }
    return acc / 16.0;
}

void main() {
    uint i = gl_LocalInvocationIndex;
    uint cur = pc.cur * HIST_REGIONS * HIST_BINS;
    uint prev = (1u - pc.cur) * HIST_REGIONS * HIST_BINS;
    float score = 0.0;
    for (uint r = 0u; r < HIST_REGIONS; r++) {
        float a = smoothed(prev + r * HIST_BINS, int(i));
        float b = smoothed(cur + r * HIST_BINS, int(i));
        float ta = reduce_sum(a);
        float tb = reduce_sum(b);
        const float eps = 1e-4;
        float pa = a / max(ta, 1.0) + eps;
        float pb = b / max(tb, 1.0) + eps;
        float d = reduce_sum((pa - pb) * log(pa / pb));
        score += 1.0 - exp(-d);
    }
    score /= float(HIST_REGIONS);
    if (i == 0u) {
        uint cut = score > CUT_THRESHOLD ? 1u : 0u;
        u_state.cut = cut;
        u_rb.r[pc.serial % READBACK_SLOTS] = (pc.serial << 1u) | cut;
    }
}
