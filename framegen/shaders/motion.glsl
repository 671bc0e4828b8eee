// Helpers shared by motion_select.comp and interpolate.comp: reading the
// final flow fields and testing whether a motion is consistent with them.
// The fields are those of pyramid level pc.level (0, or 1 for large
// pictures): one vector per BLOCK << level pixels, in 1/8 pixel of that level.

// Read as sampled images (texelFetch): on some GPUs much faster than image loads.
layout(set = 0, binding = B_FLOW) uniform isampler2D u_flow[2];

// The forward (A -> B) flow at the block containing pixel position `pos`
// (in pixels of the picture), in pixels.
vec2 flow_fwd(vec2 pos) {
    float s = float(1 << pc.level);
    ivec2 sz = textureSize(u_flow[0], 0);
    ivec2 b = clamp(ivec2(floor(pos / (float(BLOCK) * s))), ivec2(0), sz - 1);
    return vec2(texelFetch(u_flow[0], b, 0).xy) * (s / SUBPX);
}

// The backward (B -> A) flow at the block containing `pos`, in pixels.
vec2 flow_bwd(vec2 pos) {
    float s = float(1 << pc.level);
    ivec2 sz = textureSize(u_flow[1], 0);
    ivec2 b = clamp(ivec2(floor(pos / (float(BLOCK) * s))), ivec2(0), sz - 1);
    return vec2(texelFetch(u_flow[1], b, 0).xy) * (s / SUBPX);
}

// Whether a measured vector `e_vec` agrees with the motion `v` (pixels).
bool agrees(vec2 e_vec, vec2 v) {
    return length(e_vec - v) < 1.5 + 0.15 * length(v);
}

bool inside(vec2 p) {
    return all(greaterThanEqual(p, vec2(0.0))) && all(lessThanEqual(p, vec2(pc.size)));
}

// Visibility of the content that moves by `v` (A -> B) and sits at `pos`
// at time t: bit 0 when frame A's pixel it comes from is inside the picture
// and moves the same way (it is not covered in A, nor outside it), bit 1
// when frame B's pixel it goes to does.
uint visibility(vec2 pos, vec2 v, float t) {
    uint m = 0u;
    vec2 pa = pos - t * v;
    vec2 pb = pos + (1.0 - t) * v;
    if (inside(pa) && agrees(flow_fwd(pa), v)) m |= 1u;
    if (inside(pb) && agrees(-flow_bwd(pb), v)) m |= 2u;
    return m;
}
