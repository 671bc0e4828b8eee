#version 450
// Luma pyramid, reference path, level 0: one invocation per pixel.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = B_FRAME_B) uniform sampler2D u_frame;
layout(set = 0, binding = B_LUMA_LEVEL, r8) uniform writeonly image2D u_out;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size))) return;
    imageStore(u_out, p, vec4(float(luma8(texelFetch(u_frame, p, 0))) / 255.0));
}
