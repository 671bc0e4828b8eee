#version 450
// Reference check: counts the texels where two luma pyramids differ (the
// fast one in B_LUMA_B, the reference in B_LUMA_A), over all levels, into
// the readback buffer.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = B_LUMA_A) uniform sampler2D u_ref;
layout(set = 0, binding = B_LUMA_B) uniform sampler2D u_fast;
layout(set = 0, binding = B_READBACK, std430) buffer Readback { uint r[]; } u_rb;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    uint bad = 0u;
    for (int l = 0; l < pc.levels; l++) {
        if (all(lessThan(p, level_size(l))) && texel8(u_ref, p, l) != texel8(u_fast, p, l)) {
            bad++;
        }
    }
    if (bad != 0u) atomicAdd(u_rb.r[READBACK_MISMATCH], bad);
}
