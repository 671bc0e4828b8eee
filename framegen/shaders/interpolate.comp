#version 450
// Interpolation, step 2: the generated frame at time t, per pixel.
//
// Each pixel weighs several motions: those chosen for the 3x3 blocks around
// its block (small pictures, FLAG_WIDE) or for the 2x2 blocks whose centres
// surround it (large pictures), with Gaussian weights by the distance to the
// block centres (block edges blend, as in overlapped block motion
// compensation), and zero where the pixel barely changed. Motions within
// MERGE_PX of each other are merged (one fetch, summed weights). For each,
// the colour is fetched from A at p - t*v and from B at p + (1-t)*v
// (bilinear). Where both frames' flow agree with the motion, the two are
// blended by t and scored by how well they match; where only one agrees (the
// content is covered in the other, or revealed, or outside the picture) and
// the two differ by more than OCC_SCORE, that frame's colour is taken alone
// with a fixed score; where neither does, the blend is taken with a heavy
// penalty, so such a motion fills a pixel only when nothing better exists
// (hole filling). Motions are weighted by exp(-score / SIGMA) on top of
// their spatial weight.
//
// Still history: a per-pixel count of consecutive frame pairs in which the
// pixel did not change. A pixel still for STILL_FRAMES pairs (a HUD, text) is
// taken from the frames in place, so it cannot wobble with the motion around
// it. Only the first generated frame of a pair updates the history
// (FLAG_WRITE_HISTORY); a scene cut resets it and repeats frame A.
#include "common.glsl"
#include "motion.glsl"

#define OCC_SCORE 0.12
#define SIGMA 0.2
#define STILL_DIFF (3.0 / 255.0)
#define STILL_FRAMES 2.0
#define ZERO_DIFF (12.0 / 255.0)
#define NC 10
#define MERGE_PX 0.5      // motions this close are fetched once
#define SPATIAL 1.0

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = B_FRAME_A) uniform sampler2D u_frame_a;
layout(set = 0, binding = B_FRAME_B) uniform sampler2D u_frame_b;
layout(set = 0, binding = B_MOTION) uniform isampler2D u_motion;
layout(set = 0, binding = B_STILL, r8) uniform image2D u_still;
layout(set = 0, binding = B_OUTPUT, rgba8) uniform writeonly image2D u_output;
layout(set = 0, binding = B_STATE, std430) readonly buffer State { uint cut; } u_state;

float diff3(vec3 a, vec3 b) {
    vec3 d = abs(a - b);
    return (d.r + d.g + d.b) * (1.0 / 3.0);
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size))) return;
    float t = pc.t;
    bool write_history = (pc.flags & FLAG_WRITE_HISTORY) != 0u;

    vec4 a0 = texelFetch(u_frame_a, p, 0);
    vec4 b0 = texelFetch(u_frame_b, p, 0);
    if (u_state.cut != 0u) {
        imageStore(u_output, p, vec4(a0.rgb, 1.0));
        if (write_history) imageStore(u_still, p, vec4(0.0));
        return;
    }

    vec3 d = abs(a0.rgb - b0.rgb);
    bool still_now = max(d.r, max(d.g, d.b)) <= STILL_DIFF;
    float history = imageLoad(u_still, p).r * 255.0;
    if (write_history) {
        float h = still_now ? min(history + 1.0, 255.0) : 0.0;
        imageStore(u_still, p, vec4(h / 255.0));
    }
    if (still_now && history >= STILL_FRAMES) {
        imageStore(u_output, p, vec4(mix(a0.rgb, b0.rgb, t), 1.0));
        return;
    }

    vec2 pos = vec2(p) + 0.5;
    vec2 inv = 1.0 / vec2(pc.size);
    // Candidates: the motions of the 3x3 blocks around the pixel's block
    // (FLAG_WIDE: small pictures), or of the 2x2 blocks whose centres
    // surround it (large pictures: a third of the fetches), weighted by a
    // Gaussian of the distance to their centres; and zero.
    bool wide = (pc.flags & FLAG_WIDE) != 0u;
    ivec2 first = wide ? ivec2(pos) / BLOCK - 1 : ivec2(floor(pos / float(BLOCK) - 0.5));
    int side = wide ? 3 : 2;
    ivec2 nb = textureSize(u_motion, 0) - 1;
    vec2 vs[NC];
    float wb[NC];
    [[unroll]] for (int k = 0; k < 9; k++) {
        wb[k] = 0.0;
        vs[k] = vec2(0.0);
        if (k >= side * side) continue;
        ivec2 b = clamp(first + ivec2(k % side, k / side), ivec2(0), nb);
        vs[k] = vec2(texelFetch(u_motion, b, 0).xy) / SUBPX;
        vec2 dc = (pos - (vec2(b * BLOCK) + 0.5 * float(BLOCK))) / float(BLOCK);
        wb[k] = exp(-0.5 * dot(dc, dc) / (SPATIAL * SPATIAL));
    }
    // Zero only where the pixel is nearly unchanged: elsewhere it cannot be
    // the motion, and skipping it saves fetches.
    vs[9] = vec2(0.0);
    wb[9] = max(d.r, max(d.g, d.b)) <= ZERO_DIFF ? 0.25 : 0.0;
    [[unroll]] for (int k = 1; k < NC; k++) {
        bool merged = false;
        [[unroll]] for (int j = 0; j < k; j++) {
            if (!merged && wb[j] > 0.0 && wb[k] > 0.0 && all(lessThanEqual(abs(vs[j] - vs[k]), vec2(MERGE_PX)))) {
                wb[j] += wb[k];
                wb[k] = 0.0;
                merged = true;
            }
        }
    }

    // Weights exp(-(score - best) / SIGMA), accumulated online (the best
    // score so far rescales what is summed): no per-candidate arrays, so the
    // pass stays in registers.
    float best = 1e30;
    vec3 acc = vec3(0.0);
    float wsum = 0.0;
    [[unroll]] for (int k = 0; k < NC; k++) {
        if (wb[k] == 0.0) continue;
        vec2 v = vs[k];
        vec3 ca = textureLod(u_frame_a, (pos - t * v) * inv, 0.0).rgb;
        vec3 cb = textureLod(u_frame_b, (pos + (1.0 - t) * v) * inv, 0.0).rgb;
        float dc = diff3(ca, cb);
        uint vis = visibility(pos, v, t);
        vec3 c = mix(ca, cb, t);
        float sc = dc;
        if (vis == 1u || vis == 2u) {
            if (dc > OCC_SCORE) {
                c = vis == 1u ? ca : cb;
                sc = OCC_SCORE;
            }
        } else if (vis == 0u) {
            sc = dc + 2.0 * OCC_SCORE;
        }
        if (sc < best) {
            float r = exp(-(best - sc) / SIGMA);
            acc *= r;
            wsum *= r;
            best = sc;
        }
        float w = wb[k] * exp(-(sc - best) / SIGMA);
        acc += w * c;
        wsum += w;
    }
    imageStore(u_output, p, vec4(acc / wsum, 1.0));
}
