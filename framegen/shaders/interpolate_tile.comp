#version 450
// Interpolation, step 2, fast path: the generated frame at time t, one
// workgroup per TILE x TILE tile of pixels that share their candidate blocks
// (TILE = the motion block side pc.mblock: 8, or 16 for large pictures).
//
// The candidates of a pixel are the motions of the 2x2 blocks whose centres
// surround it (larger pictures: tiles run from block centre to block centre,
// offset by half a block) or of the 3x3 blocks around its own block (small
// pictures, FLAG_WIDE: tiles are the blocks), and zero. So every pixel of a
// tile has the same candidate motions, and what the reference pass
// (interpolate.comp) does per pixel is done once per tile here: reading the
// motions, deciding which merge (MERGE_PX), and fetching the flow that the
// visibility test reads. A tile's pixels at p - t*v (and p + (1-t)*v) lie in
// at most 2x2 flow blocks (a flow block is never smaller than a tile), so
// those 2x2 vectors of each field, per
// candidate, go to shared memory; each pixel then tests its own visibility
// from there. The per-pixel arithmetic is blend.glsl's, in the reference's
// order: the two passes give the same picture.
//
// Specialization constant TILE_VIS = 1 (a variant for measurements, not the
// same picture): visibility once per tile, at its centre.
#include "common.glsl"
#include "motion.glsl"
#include "blend.glsl"

// TILE: the side of the tiles, equal to pc.mblock (8 or 16).
layout(local_size_x_id = 1, local_size_y_id = 1) in;
layout(constant_id = 0) const int TILE_VIS = 0;
layout(constant_id = 1) const int TILE = 8;

layout(set = 0, binding = B_MOTION) uniform isampler2D u_motion;

shared vec2 s_v[NC];           // candidate motions; [ZERO_K] is zero
shared ivec2 s_blk[NC];        // their (clamped) blocks
shared uint s_members[NC];     // bit j: block j merges into candidate k (j > k)
shared int s_list[NC];         // the block candidates fetched, in order
shared int s_count;
shared uint s_act;             // bit k: candidate k is fetched (zero: where `small`)
shared int s_zero_into;        // block candidate zero merges into, or -1
shared ivec2 s_base[NC][2];    // first flow block of the tile at A, at B
shared ivec2 s_flow[NC][8];    // [k][0..3]: fwd at A's 2x2 blocks, [4..7]: bwd at B's
shared uint s_vis[NC];         // TILE_VIS: visibility per candidate

void main() {
    uint lid = gl_LocalInvocationIndex;
    bool wide = (pc.flags & FLAG_WIDE) != 0u;
    int side = wide ? 3 : 2;
    int nblk = side * side;
    ivec2 origin = ivec2(gl_WorkGroupID.xy) * TILE - (wide ? 0 : TILE / 2);
    ivec2 p = origin + ivec2(gl_LocalInvocationID.xy);
    bool live = all(greaterThanEqual(p, ivec2(0))) && all(lessThan(p, pc.size));
    float t = pc.t;
    vec2 pos0 = vec2(origin) + 0.5;  // the tile's first pixel

    // 1. The candidate motions.
    if (lid < uint(nblk)) {
        int k = int(lid);
        ivec2 nb = textureSize(u_motion, 0) - 1;
        ivec2 b = clamp(first_block(pos0, wide) + ivec2(k % side, k / side), ivec2(0), nb);
        s_blk[k] = b;
        s_v[k] = vec2(texelFetch(u_motion, b, 0).xy) / SUBPX;
    } else if (lid == uint(ZERO_K)) {
        s_v[ZERO_K] = vec2(0.0);
    }
    barrier();

    // 2. Merges, as the reference decides them per pixel: a block motion
    //    merges into the first earlier unmerged one near it; zero likewise
    //    (where a pixel has it).
    if (lid == 0u) {
        uint act = 0u;
        int n = 0;
        for (int k = 0; k < nblk; k++) {
            s_members[k] = 0u;
            int rep = k;
            for (int j = 0; j < k; j++) {
                if ((act & (1u << j)) != 0u && near_motion(s_v[j], s_v[k])) {
                    rep = j;
                    break;
                }
            }
            if (rep == k) {
                act |= 1u << k;
                s_list[n++] = k;
            } else {
                s_members[rep] |= 1u << k;
            }
        }
        s_count = n;
        int zi = -1;
        for (int j = 0; j < nblk; j++) {
            if ((act & (1u << j)) != 0u && near_motion(s_v[j], vec2(0.0))) {
                zi = j;
                break;
            }
        }
        s_zero_into = zi;
        // Zero is fetched only where it stays a candidate of its own.
        if (zi < 0) act |= 1u << ZERO_K;
        s_act = act;
    }
    barrier();

    // 3. The flow the visibility test reads, per fetched candidate.
    uint act = s_act;
    if (TILE_VIS == 0) {
        if (lid < uint(NC) && (act & (1u << lid)) != 0u) {
            vec2 v = s_v[lid];
            s_base[lid][0] = flow_block(pos_in_a(pos0, v, t));
            s_base[lid][1] = flow_block(pos_in_b(pos0, v, t));
        }
        barrier();
        for (uint i = lid; i < uint(NC * 8); i += uint(TILE * TILE)) {
            uint k = i >> 3u;
            if ((act & (1u << k)) == 0u) continue;
            uint j = i & 7u;
            int f = int(j >> 2u);
            ivec2 b = s_base[k][f] + ivec2(j & 1u, (j >> 1u) & 1u);
            s_flow[k][j] = flow_texel(f, b);
        }
    } else {
        if (lid < uint(NC) && (act & (1u << lid)) != 0u) {
            vec2 c = vec2(origin) + float(TILE) * 0.5;
            s_vis[lid] = visibility(c, s_v[lid], t);
        }
    }
    barrier();

    if (!live) return;
    vec4 a0 = texelFetch(u_frame_a, p, 0);
    vec4 b0 = texelFetch(u_frame_b, p, 0);
    bool small;
    if (still_step(p, t, a0, b0, small)) return;

    vec2 pos = vec2(p) + 0.5;
    vec2 inv = 1.0 / vec2(pc.size);
    int zero_into = s_zero_into;
    int n = s_count;
    bool zero_own = (act & (1u << ZERO_K)) != 0u && small;
    Blend bl = blend_start();
    // The block candidates, then zero (last, as in the reference).
    for (int i = 0; i <= n; i++) {
        int k;
        float wk;
        if (i == n) {
            if (!zero_own) break;
            k = ZERO_K;
            wk = ZERO_WEIGHT;
        } else {
            k = s_list[i];
            // The reference's sum: own weight, then the merged blocks in order.
            wk = block_weight(pos, s_blk[k]);
            uint m = s_members[k];
            while (m != 0u) {
                int j = findLSB(m);
                m &= m - 1u;
                wk += block_weight(pos, s_blk[j]);
            }
            if (zero_into == k && small) wk += ZERO_WEIGHT;
        }
        vec2 v = s_v[k];
        vec2 pa = pos_in_a(pos, v, t);
        vec2 pb = pos_in_b(pos, v, t);
        uint vis;
        if (TILE_VIS == 0) {
            ivec2 oa = clamp(flow_block(pa) - s_base[k][0], ivec2(0), ivec2(1));
            ivec2 ob = clamp(flow_block(pb) - s_base[k][1], ivec2(0), ivec2(1));
            vec2 fa = flow_pixels(s_flow[k][oa.y * 2 + oa.x]);
            vec2 fb = flow_pixels(s_flow[k][4 + ob.y * 2 + ob.x]);
            vis = visibility_of(pa, fa, pb, fb, v);
        } else {
            vis = s_vis[k];
        }
        vec3 ca = textureLod(u_frame_a, pa * inv, 0.0).rgb;
        vec3 cb = textureLod(u_frame_b, pb * inv, 0.0).rgb;
        blend_add(bl, ca, cb, vis, wk, t);
    }
    blend_store(p, bl);
}
