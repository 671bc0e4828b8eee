// The built-in scene: a native animated scene for host-sim's default title
// and for the moving content framegen's tests look at. Parallax layers
// (mountains, buildings, poles and ground scrolling at different speeds), a
// rotating pinwheel, a static HUD (text and a bar), and a different palette
// and layout after each cut.
//
// Coordinates are in scene units: 1 unit is 1 pixel of a 540-line picture,
// so the scene looks the same at any size. Bindings are numbered 0..n-1
// (ps5vk's binding rule).
#version 450

layout(local_size_x = 8, local_size_y = 8) in;

layout(set = 0, binding = 0, rgba8) uniform writeonly image2D dst;
// The HUD text as a 1-bit mask, row-major, 32 pixels a word.
layout(set = 0, binding = 1) readonly buffer Hud { uint bits[]; } hud;

layout(push_constant) uniform Params {
    ivec2 size;      // picture size in pixels
    float t;         // game time since the last cut, seconds
    uint variant;    // which scene (changes at each cut)
    ivec2 hud_size;  // mask size in mask pixels
    uint hud_scale;  // scene units per mask pixel
    uint pad;
    // The scene's palette (chosen per variant on the CPU): sky top, sky
    // bottom, far, middle, near layer.
    vec4 pal[5];
} p;

const float PI = 3.14159265;

float hash1(uint n) {
    n = (n << 13u) ^ n;
    n = n * (n * n * 15731u + 789221u) + 1376312589u;
    return float(n & 0x7fffffffu) / float(0x7fffffff);
}

float hash2(int a, int b, uint v) {
    return hash1(uint(a) * 73856093u ^ uint(b) * 19349663u ^ v * 83492791u);
}

vec3 palette(uint v, int i) {
    return p.pal[i].rgb;
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(px, p.size))) {
        return;
    }
    float unit = 540.0 / float(p.size.y);
    vec2 q = (vec2(px) + 0.5) * unit; // scene units
    float W = float(p.size.x) * unit;
    uint v = p.variant;
    float t = p.t;
    float seed = float(v % 7u) * 1.7;

    // Sky.
    vec3 c = mix(palette(v, 0), palette(v, 1), clamp(q.y / 330.0, 0.0, 1.0));

    // Far layer: mountains, slow.
    float xf = q.x + t * 24.0 + seed * 100.0;
    float ridge = 290.0 + 38.0 * sin(xf * 0.013 + seed) + 21.0 * sin(xf * 0.041 + 2.0 * seed) + 8.0 * sin(xf * 0.11);
    if (q.y > ridge) {
        c = palette(v, 2) * (0.8 + 0.2 * clamp((q.y - ridge) / 80.0, 0.0, 1.0));
        // Snow lines.
        if (mod(xf + q.y * 0.5, 37.0) < 2.0) {
            c *= 1.25;
        }
    }

    // Middle layer: buildings with windows, medium speed.
    float xm = q.x + t * 72.0;
    int cell = int(floor(xm / 90.0));
    float local = xm - float(cell) * 90.0;
    float hb = 110.0 + 100.0 * hash2(cell, 1, v);
    if (local > 8.0 && local < 82.0 && q.y > 430.0 - hb && q.y < 430.0) {
        c = palette(v, 3);
        int wx = int(floor((local - 8.0) / 14.0));
        int wy = int(floor((q.y - (430.0 - hb)) / 18.0));
        float fx = mod(local - 8.0, 14.0);
        float fy = mod(q.y - (430.0 - hb), 18.0);
        if (fx > 4.0 && fx < 11.0 && fy > 5.0 && fy < 13.0) {
            c = hash2(cell * 16 + wx, wy, v) > 0.45 ? vec3(1.0, 0.9, 0.5) : vec3(0.12, 0.12, 0.16);
        }
    }

    // Near layer: ground, fast, a checker that shows the motion.
    float xn = q.x + t * 210.0;
    if (q.y >= 430.0) {
        float d = q.y - 430.0;
        bool odd = (int(floor(xn / 40.0)) + int(floor(d / 22.0))) % 2 != 0;
        c = palette(v, 4) * (odd ? 0.75 : 1.0) * (0.85 + 0.15 * d / 110.0);
    }
    // Poles, nearest: in front of the buildings, standing on the ground.
    float pl = mod(xn, 170.0);
    if (pl < 12.0 && q.y > 315.0 && q.y < 445.0) {
        c = vec3(0.2, 0.18, 0.15) + 0.4 * (pl / 12.0);
    }

    // The pinwheel, rotating.
    vec2 centre = vec2(W * 0.72, 165.0);
    vec2 d = q - centre;
    float r = length(d);
    if (r < 72.0) {
        float arms = float(4u + v % 3u);
        float a = atan(d.y, d.x) - t * 1.7;
        float f = fract(a * arms / (2.0 * PI));
        if (f < 0.45 || r < 10.0) {
            vec3 oc = vec3(0.9, 0.2 + 0.15 * float(v % 4u), 0.25);
            c = mod(r, 16.0) < 8.0 ? oc : oc * 0.55;
        }
    }

    // Static HUD: a bar top right, text bottom left.
    if (q.x > W - 206.0 && q.x < W - 16.0 && q.y > 16.0 && q.y < 34.0) {
        c = vec3(0.05);
        if (q.x > W - 203.0 && q.x < W - 19.0 - 184.0 * 0.3 && q.y > 19.0 && q.y < 31.0) {
            c = vec3(0.2, 0.85, 0.3);
        }
    }
    vec2 hud_origin = vec2(16.0, 540.0 - 16.0 - float(p.hud_size.y * int(p.hud_scale)));
    vec2 h = (q - hud_origin) / float(p.hud_scale);
    if (all(greaterThanEqual(h, vec2(-2.0))) && all(lessThan(h, vec2(p.hud_size) + 2.0))) {
        c = mix(c, vec3(0.0), 0.65);
        ivec2 hi = ivec2(floor(h));
        if (all(greaterThanEqual(hi, ivec2(0))) && all(lessThan(hi, p.hud_size))) {
            uint bit = uint(hi.y * p.hud_size.x + hi.x);
            if ((hud.bits[bit >> 5u] & (1u << (bit & 31u))) != 0u) {
                c = vec3(1.0);
            }
        }
    }
    imageStore(dst, px, vec4(c, 1.0));
}
