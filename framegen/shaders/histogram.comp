#version 450
// Scene-change detection, step 1: a 64-bin luma histogram for each of the
// 3x3 screen sections of the current frame, from pyramid level HIST_LEVEL.
#include "common.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

layout(set = 0, binding = B_LUMA_B) uniform sampler2D u_luma;
layout(set = 0, binding = B_HIST, std430) buffer Hist { uint h[]; } u_hist;

shared uint s_hist[HIST_REGIONS * HIST_BINS];

void main() {
    uint li = gl_LocalInvocationIndex;
    for (uint i = li; i < HIST_REGIONS * HIST_BINS; i += 256u) s_hist[i] = 0u;
    barrier();
    ivec2 sz = level_size(HIST_LEVEL);
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (all(lessThan(p, sz))) {
        ivec2 r = (p * 3) / sz;
        uint bin = texel8(u_luma, p, HIST_LEVEL) >> 2;
        atomicAdd(s_hist[(r.y * 3 + r.x) * HIST_BINS + bin], 1u);
    }
    barrier();
    uint base = pc.cur * HIST_REGIONS * HIST_BINS;
    for (uint i = li; i < HIST_REGIONS * HIST_BINS; i += 256u) {
        if (s_hist[i] != 0u) atomicAdd(u_hist.h[base + i], s_hist[i]);
    }
}
