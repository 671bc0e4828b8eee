#version 450
// Reference check of the flow: counts the blocks where the fast and the
// reference flow fields of one level differ, both directions, into the
// readback buffer.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = B_FLOW_COARSE, rg16i) uniform readonly iimage2D u_ref[2];
layout(set = 0, binding = B_FLOW_OUT, rg16i) uniform readonly iimage2D u_fast[2];
layout(set = 0, binding = B_READBACK, std430) buffer Readback { uint r[]; } u_rb;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, imageSize(u_fast[0])))) return;
    uint bad = 0u;
    if (imageLoad(u_ref[0], p).xy != imageLoad(u_fast[0], p).xy) bad++;
    if (imageLoad(u_ref[1], p).xy != imageLoad(u_fast[1], p).xy) bad++;
    if (bad != 0u) atomicAdd(u_rb.r[READBACK_MISMATCH], bad);
}
