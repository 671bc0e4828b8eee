#version 450
// Interpolation, step 2, reference path (FRAMEGEN_REFERENCE=1; =2 runs it
// beside interpolate_tile.comp and compares the pictures, which must be
// equal): the generated frame at time t, everything per pixel. The
// arithmetic and its description are in blend.glsl.
#include "common.glsl"
#include "motion.glsl"
#include "blend.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = B_MOTION) uniform isampler2D u_motion;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size))) return;
    float t = pc.t;
    vec4 a0 = texelFetch(u_frame_a, p, 0);
    vec4 b0 = texelFetch(u_frame_b, p, 0);
    bool small;
    if (still_step(p, t, a0, b0, small)) return;

    vec2 pos = vec2(p) + 0.5;
    vec2 inv = 1.0 / vec2(pc.size);
    bool wide = (pc.flags & FLAG_WIDE) != 0u;
    ivec2 first = first_block(pos, wide);
    int side = wide ? 3 : 2;
    ivec2 nb = textureSize(u_motion, 0) - 1;
    vec2 vs[NC];
    float wb[NC];
    for (int k = 0; k < ZERO_K; k++) {
        wb[k] = 0.0;
        vs[k] = vec2(0.0);
        if (k >= side * side) continue;
        ivec2 b = clamp(first + ivec2(k % side, k / side), ivec2(0), nb);
        vs[k] = vec2(texelFetch(u_motion, b, 0).xy) / SUBPX;
        wb[k] = block_weight(pos, b);
    }
    vs[ZERO_K] = vec2(0.0);
    wb[ZERO_K] = small ? ZERO_WEIGHT : 0.0;
    // Merge each motion into the first earlier one near it.
    for (int k = 1; k < NC; k++) {
        for (int j = 0; j < k; j++) {
            if (wb[j] > 0.0 && wb[k] > 0.0 && near_motion(vs[j], vs[k])) {
                wb[j] += wb[k];
                wb[k] = 0.0;
                break;
            }
        }
    }
    Blend bl = blend_start();
    for (int k = 0; k < NC; k++) {
        if (wb[k] == 0.0) continue;
        vec2 v = vs[k];
        vec3 ca = textureLod(u_frame_a, pos_in_a(pos, v, t) * inv, 0.0).rgb;
        vec3 cb = textureLod(u_frame_b, pos_in_b(pos, v, t) * inv, 0.0).rgb;
        blend_add(bl, ca, cb, visibility(pos, v, t), wb[k], t);
    }
    blend_store(p, bl);
}
