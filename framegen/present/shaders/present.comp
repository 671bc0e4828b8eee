// The game's picture as it is shown: scaled to the display (bilinear,
// keeping its aspect ratio, black borders), then the game's video-out
// colour processing (gamma, limited RGB range). Its output is both the
// game's presented frame and the interpolator's input, so the generated
// frames look exactly like the game's.
//
// Bindings are numbered 0..n-1 (ps5vk keeps binding numbers in a byte and
// sizes its tables by the highest one). The CPU reference of the same math
// is framegen-present's `colour::process_cpu`; a test compares the two.
#version 450

layout(local_size_x = 8, local_size_y = 8) in;

// The game's picture, read with texelFetch (the filtering is done here, so
// every driver gives the same result).
layout(set = 0, binding = 0) uniform sampler2D src;
// The display-size picture.
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;

layout(push_constant) uniform Params {
    ivec2 dst_size;
    ivec2 vp_offset; // where the picture goes in dst
    ivec2 vp_size;   // its size there
    ivec2 src_size;
    float gamma;     // output = input ^ gamma (1: unchanged)
    uint flags;      // bit 0: limited RGB range (16..235)
} p;

const uint LIMITED_RANGE = 1u;

void main() {
    ivec2 d = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(d, p.dst_size))) {
        return;
    }
    vec3 c = vec3(0.0);
    ivec2 rel = d - p.vp_offset;
    if (all(greaterThanEqual(rel, ivec2(0))) && all(lessThan(rel, p.vp_size))) {
        // Pixel centres map to pixel centres.
        vec2 s = (vec2(rel) + 0.5) * (vec2(p.src_size) / vec2(p.vp_size)) - 0.5;
        s = clamp(s, vec2(0.0), vec2(p.src_size - 1));
        ivec2 i0 = ivec2(floor(s));
        ivec2 i1 = min(i0 + 1, p.src_size - 1);
        vec2 f = s - vec2(i0);
        vec3 a = texelFetch(src, i0, 0).rgb;
        vec3 b = texelFetch(src, ivec2(i1.x, i0.y), 0).rgb;
        vec3 e = texelFetch(src, ivec2(i0.x, i1.y), 0).rgb;
        vec3 g = texelFetch(src, i1, 0).rgb;
        c = mix(mix(a, b, f.x), mix(e, g, f.x), f.y);
        if (p.gamma != 1.0) {
            c = pow(c, vec3(p.gamma));
        }
    }
    if ((p.flags & LIMITED_RANGE) != 0u) {
        c = (c * 219.0 + 16.0) / 255.0;
    }
    imageStore(dst, d, vec4(c, 1.0));
}
