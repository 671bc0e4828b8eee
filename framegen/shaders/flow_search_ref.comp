#version 450
// Optical flow, reference path (FRAMEGEN_REFERENCE=1; =2 runs it beside the
// fast path, flow_search.comp, and compares the results, which must be equal
// bit for bit). One level of the coarse-to-fine block matching, both
// directions at once (z = 0: previous -> current, z = 1: current -> previous).
// Plain loops: one invocation per candidate, shared-memory atomics.
//
// A workgroup matches one 8x8 block of its level:
//  1. predictor: the coarser level's vectors of the 3x3 blocks around the
//     parent (upscaled x2), and zero; the one with the least SAD wins (this is
//     the upscale and the neighbourhood filter in one step);
//  2. search: every integer offset within +-radius around the predictor, SAD
//     on luma from a shared-memory copy of the search window, plus a small
//     penalty per pixel away from the predictor (keeps flat areas smooth);
//  3. sub-pixel: a parabola through the sums of squared differences at the
//     minimum and its four neighbours, per axis (SSD is near quadratic
//     there; SAD would bias the fit towards whole pixels).
// Vectors are stored in 1/8 pixel of their level.
#include "common.glsl"
#include "flow.glsl"

layout(local_size_x = BLOCK, local_size_y = BLOCK) in;

layout(set = 0, binding = B_LUMA_A) uniform sampler2D u_luma_a;
layout(set = 0, binding = B_LUMA_B) uniform sampler2D u_luma_b;
layout(set = 0, binding = B_FLOW_COARSE, rg16i) uniform readonly iimage2D u_coarse[2];
layout(set = 0, binding = B_FLOW_OUT, rg16i) uniform writeonly iimage2D u_out[2];

shared uint s_src[BLOCK * BLOCK];
shared uint s_win[WMAX * WMAX];
shared uint s_pred_cost[NPRED];
shared ivec2 s_pred[NPRED];
shared uint s_cost[(2 * RMAX + 1) * (2 * RMAX + 1)];
shared uint s_best;
shared uint s_ssd[5];

uint fetch(bool from_a, ivec2 p, int l) {
    return from_a ? texel8(u_luma_a, p, l) : texel8(u_luma_b, p, l);
}


void main() {
    int dir = int(gl_WorkGroupID.z);
    bool src_a = dir == 0;
    int l = pc.level;
    ivec2 blk = ivec2(gl_WorkGroupID.xy);
    ivec2 o = blk * BLOCK;
    ivec2 lim = level_size(l) - 1;
    uint lid = gl_LocalInvocationIndex;
    ivec2 lp = ivec2(gl_LocalInvocationID.xy);
    int r = clamp(pc.radius, 0, RMAX);

    uint src = fetch(src_a, min(o + lp, lim), l);
    s_src[lid] = src;
    if (lid < NPRED) {
        s_pred_cost[lid] = 0u;
        ivec2 v = ivec2(0);
        if ((pc.flags & FLAG_COARSEST) == 0u && lid < 9u) {
            ivec2 csz = imageSize(u_coarse[0]);
            ivec2 pb = clamp(blk / 2 + PRED_OFFSETS[lid], ivec2(0), csz - 1);
            v = 2 * (src_a ? imageLoad(u_coarse[0], pb).xy : imageLoad(u_coarse[1], pb).xy);
        }
        s_pred[lid] = v;
    }
    if (lid == 0u) s_best = 0xffffffffu;
    barrier();

    // 1. Predictor: each invocation adds its pixel's difference to every candidate.
    [[unroll]] for (int k = 0; k < NPRED; k++) {
        ivec2 q = clamp(o + lp + whole(s_pred[k]), ivec2(0), lim);
        uint d = uint(abs(int(src) - int(fetch(!src_a, q, l))));
        atomicAdd(s_pred_cost[k], d);
    }
    barrier();
    ivec2 pred = s_pred[0];
    uint best_pred = s_pred_cost[0];
    for (int k = 1; k < NPRED; k++) {
        if (s_pred_cost[k] < best_pred) {
            best_pred = s_pred_cost[k];
            pred = s_pred[k];
        }
    }
    ivec2 c = whole(pred);

    // 2. Search window into shared memory.
    int w = BLOCK + 2 * r;
    ivec2 w0 = o + c - r;
    for (int i = int(lid); i < w * w; i += BLOCK * BLOCK) {
        ivec2 q = clamp(w0 + ivec2(i % w, i / w), ivec2(0), lim);
        s_win[i] = fetch(!src_a, q, l);
    }
    barrier();
    int n = (2 * r + 1) * (2 * r + 1);
    for (int k = int(lid); k < n; k += BLOCK * BLOCK) {
        int dx = k % (2 * r + 1);
        int dy = k / (2 * r + 1);
        uint sad = 0u;
        for (int j = 0; j < BLOCK; j++) {
            [[unroll]] for (int i = 0; i < BLOCK; i++) {
                sad += uint(abs(int(s_src[j * BLOCK + i]) - int(s_win[(j + dy) * w + i + dx])));
            }
        }
        sad += LAMBDA * uint(abs(dx - r) + abs(dy - r));
        s_cost[k] = sad;
        atomicMin(s_best, (sad << 10) | uint(k));
    }
    barrier();

    // 3. Sub-pixel refinement: SSD at the minimum and its 4 neighbours.
    int side = 2 * r + 1;
    int kbest = int(s_best & 1023u);
    ivec2 best = ivec2(kbest % side, kbest / side);
    if (lid < 5u) {
        const ivec2 nb[5] = ivec2[5](ivec2(0, 0), ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1));
        ivec2 d = best + nb[lid];
        uint ssd = NO_SSD;
        if (all(greaterThanEqual(d, ivec2(0))) && all(lessThan(d, ivec2(side)))) {
            ssd = 0u;
            for (int j = 0; j < BLOCK; j++) {
                for (int i = 0; i < BLOCK; i++) {
                    int e = int(s_src[j * BLOCK + i]) - int(s_win[(j + d.y) * w + i + d.x]);
                    ssd += uint(e * e);
                }
            }
        }
        s_ssd[lid] = ssd;
    }
    barrier();
    if (lid == 0u) {
        vec2 sub = subpixel(s_ssd[0], s_ssd[1], s_ssd[2], s_ssd[3], s_ssd[4]);
        ivec2 v = (c + best - r) * int(SUBPX) + ivec2(floor(sub * SUBPX + 0.5));
        if (src_a) {
            imageStore(u_out[0], blk, ivec4(v, 0, 0));
        } else {
            imageStore(u_out[1], blk, ivec4(v, 0, 0));
        }
    }
}
