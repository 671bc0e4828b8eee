#version 450
// Reference check of the interpolation: counts the pixels where the fast
// pass (interpolate_tile.comp) and the reference (interpolate.comp) made a
// different picture or a different still history, into the readback buffer.
#include "common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = B_OUTPUT, rgba8) uniform readonly image2D u_fast;
layout(set = 0, binding = B_OUTPUT_REF, rgba8) uniform readonly image2D u_ref;
layout(set = 0, binding = B_STILL, r8) uniform readonly image2D u_still;
layout(set = 0, binding = B_STILL_REF, r8) uniform readonly image2D u_still_ref;
layout(set = 0, binding = B_READBACK, std430) buffer Readback { uint r[]; } u_rb;

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(p, pc.size))) return;
    uint bad = 0u;
    if (any(notEqual(imageLoad(u_fast, p), imageLoad(u_ref, p)))) bad++;
    if (imageLoad(u_still, p).r != imageLoad(u_still_ref, p).r) bad++;
    if (bad != 0u) atomicAdd(u_rb.r[READBACK_MISMATCH], bad);
}
