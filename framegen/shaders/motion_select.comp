#version 450
// Interpolation, step 1: the motion of each block of the generated frame
// at time t (blocks of pc.mblock pixels: 8, or 16 for large pictures).
//
// Candidates: zero; the forward flow and the reversed backward flow of the
// 3x3 blocks around it; and both fields read again where the first guesses
// say the block's content was (in A) and will be (in B). Each is scored by a
// bilateral SAD over 16 samples of the block, luma of A at p - t*v against
// luma of B at p + (1-t)*v, and by its visibility: a motion neither frame's
// flow agrees with is penalised; one only one frame agrees with (content
// covered or revealed) gets a fixed cost, since it cannot be compared across
// frames. A workgroup scores four blocks, 16 invocations each; a candidate
// equal to an earlier one is scored once.
#extension GL_KHR_shader_subgroup_quad : require
#include "common.glsl"
#include "motion.glsl"

#define NCAND 23
#define OCC_COST 320u      // 16 samples x 20 luma levels
#define OCC_BIAS 64u
#define NONZERO_BIAS 2u

layout(local_size_x = 64) in;
// PER_CAND = 1 (the default): the SAD loop runs one invocation per
// distinct candidate over the 16 samples; 0: one invocation per sample over
// the candidates, sums through quads and shared atomics (the earlier
// layout, kept as a variant: the same sums, a few per cent slower in this
// pass on the H200).
layout(constant_id = 0) const int PER_CAND = 1;

layout(set = 0, binding = B_LUMA_A) uniform sampler2D u_luma_a;
layout(set = 0, binding = B_LUMA_B) uniform sampler2D u_luma_b;
layout(set = 0, binding = B_MOTION, rgba16i) uniform writeonly iimage2D u_motion;

shared vec2 s_cand[4][NCAND];
shared uint s_cost[4][NCAND];
shared uint s_dup[4][NCAND];
shared uint s_list[4][NCAND];      // PER_CAND: the distinct candidates
shared uint s_count[4];

// Sample `q` (0..15, 4x4) of block `blk` of side `mb`.
vec2 sample_pos(ivec2 blk, int mb, int q) {
    return vec2(blk * mb) + (vec2(ivec2(q & 3, q >> 2)) + 0.5) * (float(mb) * 0.25);
}

// The bilateral difference of one sample for motion `v`.
uint sample_diff(vec2 s, vec2 v, float t, vec2 inv) {
    float ya = textureLod(u_luma_a, (s - t * v) * inv, 0.0).r;
    float yb = textureLod(u_luma_b, (s + (1.0 - t) * v) * inv, 0.0).r;
    return uint(abs(ya - yb) * 255.0 + 0.5);
}

void main() {
    uint lid = gl_LocalInvocationIndex;
    uint sub = lid >> 4u;                  // which of the 4 blocks
    uint li = lid & 15u;                   // sample within the block
    ivec2 blk = ivec2(gl_WorkGroupID.xy) * 2 + ivec2(sub & 1u, sub >> 1u);
    ivec2 nblk = imageSize(u_motion);
    bool live = all(lessThan(blk, nblk));
    float t = pc.t;
    int mb = pc.mblock;
    vec2 centre = vec2(blk * mb) + float(mb) * 0.5;

    if (li < 9u) {
        ivec2 d = ivec2(int(li % 3u) - 1, int(li / 3u) - 1);
        vec2 pos = centre + vec2(d * (BLOCK << pc.level));
        s_cand[sub][1u + li] = flow_fwd(pos);
        s_cand[sub][10u + li] = -flow_bwd(pos);
    }
    barrier();
    if (li == 0u) {
        vec2 f = s_cand[sub][1 + 4];       // own block, forward
        vec2 g = s_cand[sub][10 + 4];      // own block, backward reversed
        s_cand[sub][0] = vec2(0.0);
        s_cand[sub][19] = flow_fwd(centre - t * f);
        s_cand[sub][20] = -flow_bwd(centre + (1.0 - t) * g);
        s_cand[sub][21] = flow_fwd(centre - t * g);
        s_cand[sub][22] = -flow_bwd(centre + (1.0 - t) * f);
    }
    barrier();
    for (uint k = li; k < NCAND; k += 16u) {
        uint dup = 0u;
        for (uint j = 0u; j < k; j++) {
            if (all(equal(s_cand[sub][j], s_cand[sub][k]))) {
                dup = 1u;
                break;
            }
        }
        s_dup[sub][k] = dup;
        s_cost[sub][k] = 0u;
    }
    barrier();

    // Bilateral SAD over 16 samples of the block, luma of A at s - t*v
    // against luma of B at s + (1-t)*v, in integer luma units.
    vec2 inv = 1.0 / vec2(pc.size);
    if (PER_CAND == 0) {
        // This invocation's sample, every candidate; sums through the quad
        // and a shared atomic.
        vec2 s = sample_pos(blk, mb, int(li));
        for (int k = 0; k < NCAND; k++) {
            // Uniform over the block's 16 invocations, so over each quad.
            if (s_dup[sub][k] != 0u) continue;
            uint d = sample_diff(s, s_cand[sub][k], t, inv);
            d += subgroupQuadSwapHorizontal(d);
            d += subgroupQuadSwapVertical(d);
            if ((li & 3u) == 0u) atomicAdd(s_cost[sub][k], d);
        }
    } else {
        // This invocation's candidate (the distinct ones, packed), every
        // sample: the same integer sums, with no reductions.
        for (uint k = li; k < NCAND; k += 16u) {
            if (s_dup[sub][k] != 0u) continue;
            uint r = 0u;
            for (uint j = 0u; j < k; j++) r += 1u - s_dup[sub][j];
            s_list[sub][r] = k;
        }
        if (li == 0u) {
            uint n = 0u;
            for (uint j = 0u; j < NCAND; j++) n += 1u - s_dup[sub][j];
            s_count[sub] = n;
        }
        barrier();
        for (uint i = li; i < s_count[sub]; i += 16u) {
            uint k = s_list[sub][i];
            vec2 v = s_cand[sub][k];
            uint sad = 0u;
            [[unroll]] for (int q = 0; q < 16; q++) {
                sad += sample_diff(sample_pos(blk, mb, q), v, t, inv);
            }
            s_cost[sub][k] = sad;
        }
    }
    barrier();

    // Visibility, one candidate per invocation.
    for (uint k = li; k < NCAND; k += 16u) {
        vec2 v = s_cand[sub][k];
        uint vis = visibility(centre, v, t);
        uint c = s_cost[sub][k];
        if (vis == 3u) {
        } else if (vis != 0u) {
            c = min(c, OCC_COST) + OCC_BIAS;
        } else {
            c = c + 2u * OCC_COST;
        }
        if (k != 0u) c += NONZERO_BIAS;
        if (s_dup[sub][k] != 0u) c = 0xffffffu;
        s_cost[sub][k] = (min(c, 0xffffffu) << 8) | vis;
    }
    barrier();
    if (li == 0u && live) {
        uint best = s_cost[sub][0];
        int bk = 0;
        for (int k = 1; k < NCAND; k++) {
            if ((s_cost[sub][k] >> 8) < (best >> 8)) {
                best = s_cost[sub][k];
                bk = k;
            }
        }
        ivec2 v = ivec2(floor(s_cand[sub][bk] * SUBPX + 0.5));
        imageStore(u_motion, blk, ivec4(v, int(min(best >> 8, 32767u)), int(best & 3u)));
    }
}
