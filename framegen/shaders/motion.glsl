// Helpers shared by motion_select.comp, interpolate.comp and
// interpolate_tile.comp: reading the final flow fields and testing whether a
// motion is consistent with them. The fields are those of pyramid level
// pc.level (0, 1 or 2): one vector per BLOCK << level pixels, in 1/8 pixel of
// that level.

// Read as sampled images (texelFetch): on some GPUs much faster than image loads.
layout(set = 0, binding = B_FLOW) uniform isampler2D u_flow[2];

// The flow block (unclamped) that contains pixel position `pos`.
ivec2 flow_block(vec2 pos) {
    float s = float(1 << pc.level);
    return ivec2(floor(pos / (float(BLOCK) * s)));
}

// A stored flow texel in pixels.
vec2 flow_pixels(ivec2 texel) {
    float s = float(1 << pc.level);
    return vec2(texel) * (s / SUBPX);
}

// The stored vector of field `f` (0 forward, 1 backward) at flow block `b`,
// clamped to the field.
ivec2 flow_texel(int f, ivec2 b) {
    ivec2 sz = textureSize(u_flow[f], 0);
    return f == 0 ? texelFetch(u_flow[0], clamp(b, ivec2(0), sz - 1), 0).xy
                  : texelFetch(u_flow[1], clamp(b, ivec2(0), sz - 1), 0).xy;
}

// The forward (A -> B) flow at the block containing pixel position `pos`
// (in pixels of the picture), in pixels.
vec2 flow_fwd(vec2 pos) {
    return flow_pixels(flow_texel(0, flow_block(pos)));
}

// The backward (B -> A) flow at the block containing `pos`, in pixels.
vec2 flow_bwd(vec2 pos) {
    return flow_pixels(flow_texel(1, flow_block(pos)));
}

// Whether a measured vector `e_vec` agrees with the motion `v` (pixels).
bool agrees(vec2 e_vec, vec2 v) {
    return length(e_vec - v) < 1.0 + 0.1 * length(v);
}

bool inside(vec2 p) {
    return all(greaterThanEqual(p, vec2(0.0))) && all(lessThanEqual(p, vec2(pc.size)));
}

// Where the content that moves by `v` (A -> B) and sits at `pos` at time t
// was in frame A and will be in frame B.
vec2 pos_in_a(vec2 pos, vec2 v, float t) { return pos - t * v; }
vec2 pos_in_b(vec2 pos, vec2 v, float t) { return pos + (1.0 - t) * v; }

// Visibility from the positions in A and B and the flow read there: bit 0
// when frame A's pixel is inside the picture and moves the same way (it is
// not covered in A, nor outside it), bit 1 when frame B's pixel does.
uint visibility_of(vec2 pa, vec2 fwd_at_a, vec2 pb, vec2 bwd_at_b, vec2 v) {
    uint m = 0u;
    if (inside(pa) && agrees(fwd_at_a, v)) m |= 1u;
    if (inside(pb) && agrees(-bwd_at_b, v)) m |= 2u;
    return m;
}

// Visibility of the content that moves by `v` and sits at `pos` at time t.
uint visibility(vec2 pos, vec2 v, float t) {
    vec2 pa = pos_in_a(pos, v, t);
    vec2 pb = pos_in_b(pos, v, t);
    return visibility_of(pa, flow_fwd(pa), pb, flow_bwd(pb), v);
}
