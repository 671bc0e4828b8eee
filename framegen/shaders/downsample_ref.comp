#version 450
// Luma pyramid, reference path: level pc.level from level pc.level - 1, one
// invocation per pixel, the rounded mean of the four texels below it.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = B_LUMA_B) uniform sampler2D u_luma;
layout(set = 0, binding = B_LUMA_LEVEL, r8) uniform writeonly image2D u_out;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    int l = pc.level;
    if (any(greaterThanEqual(p, level_size(l)))) return;
    ivec2 s = p * 2;
    uint v = texel8(u_luma, s, l - 1) + texel8(u_luma, s + ivec2(1, 0), l - 1)
           + texel8(u_luma, s + ivec2(0, 1), l - 1) + texel8(u_luma, s + ivec2(1, 1), l - 1);
    imageStore(u_out, p, vec4(float((v + 2u) >> 2) / 255.0));
}
