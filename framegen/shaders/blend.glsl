// The per-pixel arithmetic of the interpolation, shared by interpolate.comp
// (reference: everything per pixel) and interpolate_tile.comp (fast: the
// per-block work once per tile), so that the two compute the same function
// with the same operations in the same order.
//
// Each pixel weighs several motions: those chosen for the 3x3 blocks around
// its block (small pictures, FLAG_WIDE) or for the 2x2 blocks whose centres
// surround it (large pictures), with Gaussian weights by the distance to the
// block centres (block edges blend, as in overlapped block motion
// compensation), and zero where the pixel barely changed. Motions within
// MERGE_PX of an earlier one are merged into it (one fetch, summed weights).
// For each, the colour is fetched from A at p - t*v and from B at p + (1-t)*v
// (bilinear). Where both frames' flow agree with the motion, the two are
// blended by t and scored by how well they match; where only one agrees (the
// content is covered in the other, or revealed, or outside the picture) and
// the two differ by more than OCC_SCORE, that frame's colour is taken alone
// with a fixed score; where neither does, the blend is taken with a heavy
// penalty, so such a motion fills a pixel only when nothing better exists
// (hole filling). Motions are weighted by exp(-score / SIGMA) on top of
// their spatial weight, accumulated online (the best score so far rescales
// what is summed): no per-candidate arrays. A second sum with the much
// softer SIGMA_SOFT is kept beside it; where even the best candidate matches
// poorly (best score from SOFT_FROM to SOFT_TO: articulated or non-rigid
// motion, irregular frame timing), the result moves towards it, so that the
// uncertain motions are averaged rather than one picked (a double edge
// becomes a soft one; vtest +0.17 dB, see README).
//
// Still history: a per-pixel count of consecutive frame pairs in which the
// pixel did not change. A pixel still for STILL_FRAMES pairs (a HUD, text) is
// taken from the frames in place, so it cannot wobble with the motion around
// it. Only the first generated frame of a pair updates the history
// (FLAG_WRITE_HISTORY); a scene cut resets it and repeats frame A.

#define OCC_SCORE 0.12
#define SIGMA 0.2
#define SIGMA_SOFT 1.0
#define SOFT_FROM 0.03
#define SOFT_TO 0.1
#define STILL_DIFF (3.0 / 255.0)
#define STILL_FRAMES 2.0
#define ZERO_DIFF (12.0 / 255.0)
#define ZERO_WEIGHT 0.25
#define NC 10             // candidates: up to 9 blocks, then zero
#define ZERO_K 9
#define MERGE_PX 0.5      // motions this close are fetched once
#define SPATIAL 1.0

layout(set = 0, binding = B_FRAME_A) uniform sampler2D u_frame_a;
layout(set = 0, binding = B_FRAME_B) uniform sampler2D u_frame_b;
layout(set = 0, binding = B_STILL, r8) uniform image2D u_still;
layout(set = 0, binding = B_OUTPUT, rgba8) uniform writeonly image2D u_output;
layout(set = 0, binding = B_STATE, std430) readonly buffer State { uint cut; } u_state;

float diff3(vec3 a, vec3 b) {
    vec3 d = abs(a - b);
    return (d.r + d.g + d.b) * (1.0 / 3.0);
}

// The first block of the candidates of pixel position `pos`, and the side of
// their square (3 wide, 2 otherwise).
ivec2 first_block(vec2 pos, bool wide) {
    int mb = pc.mblock;
    return wide ? ivec2(pos) / mb - 1 : ivec2(floor(pos / float(mb) - 0.5));
}

// Spatial weight of block `b` (clamped index) for pixel position `pos`.
float block_weight(vec2 pos, ivec2 b) {
    int mb = pc.mblock;
    vec2 dc = (pos - (vec2(b * mb) + 0.5 * float(mb))) / float(mb);
    return exp(-0.5 * dot(dc, dc) / (SPATIAL * SPATIAL));
}

bool near_motion(vec2 a, vec2 b) {
    return all(lessThanEqual(abs(a - b), vec2(MERGE_PX)));
}

// The still-history step, run first by every pixel. Returns true when the
// pixel is done (a cut, or a still pixel); `small` says whether it barely
// changed (zero motion is then a candidate).
bool still_step(ivec2 p, float t, vec4 a0, vec4 b0, out bool small) {
    bool write_history = (pc.flags & FLAG_WRITE_HISTORY) != 0u;
    small = false;
    if (u_state.cut != 0u) {
        imageStore(u_output, p, vec4(a0.rgb, 1.0));
        if (write_history) imageStore(u_still, p, vec4(0.0));
        return true;
    }
    vec3 d = abs(a0.rgb - b0.rgb);
    float dmax = max(d.r, max(d.g, d.b));
    bool still_now = dmax <= STILL_DIFF;
    float history = imageLoad(u_still, p).r * 255.0;
    if (write_history) {
        float h = still_now ? min(history + 1.0, 255.0) : 0.0;
        imageStore(u_still, p, vec4(h / 255.0));
    }
    if (still_now && history >= STILL_FRAMES) {
        imageStore(u_output, p, vec4(mix(a0.rgb, b0.rgb, t), 1.0));
        return true;
    }
    small = dmax <= ZERO_DIFF;
    return false;
}

// The online weighted sum of the candidates' colours.
struct Blend {
    float best;
    vec3 acc;       // weights exp(-score / SIGMA)
    float wsum;
    vec3 acc_soft;  // weights exp(-score / SIGMA_SOFT)
    float wsum_soft;
};

Blend blend_start() {
    Blend b;
    b.best = 1e30;
    b.acc = vec3(0.0);
    b.wsum = 0.0;
    b.acc_soft = vec3(0.0);
    b.wsum_soft = 0.0;
    return b;
}

// Adds one candidate: its colours in A and B, its visibility bits and its
// spatial weight.
void blend_add(inout Blend b, vec3 ca, vec3 cb, uint vis, float wk, float t) {
    float dc = diff3(ca, cb);
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
    if (sc < b.best) {
        float r = exp(-(b.best - sc) / SIGMA);
        b.acc *= r;
        b.wsum *= r;
        float rs = exp(-(b.best - sc) / SIGMA_SOFT);
        b.acc_soft *= rs;
        b.wsum_soft *= rs;
        b.best = sc;
    }
    float w = wk * exp(-(sc - b.best) / SIGMA);
    b.acc += w * c;
    b.wsum += w;
    float ws = wk * exp(-(sc - b.best) / SIGMA_SOFT);
    b.acc_soft += ws * c;
    b.wsum_soft += ws;
}

void blend_store(ivec2 p, Blend b) {
    float k = smoothstep(SOFT_FROM, SOFT_TO, b.best);
    vec3 c = mix(b.acc / b.wsum, b.acc_soft / b.wsum_soft, k);
    imageStore(u_output, p, vec4(c, 1.0));
}
