// Shared by flow_search.comp (fast) and flow_search_ref.comp (reference):
// the constants and the arithmetic that must be the same in both.

#define RMAX 6             // largest search radius
#define WMAX (BLOCK + 2 * RMAX)
#define NPRED 10           // predictor candidates: 3x3 coarser vectors and zero
#define LAMBDA 4u          // SAD penalty per pixel away from the predictor
#define NO_SSD 0xffffffffu

// Rounds a vector in 1/8 pixel to whole pixels.
ivec2 whole(ivec2 v) {
    return ivec2(floor(vec2(v) / SUBPX + 0.5));
}

float parabola(uint cm, uint c0, uint cp) {
    float den = float(cm) - 2.0 * float(c0) + float(cp);
    return den > 0.0 ? clamp(0.5 * (float(cm) - float(cp)) / den, -0.5, 0.5) : 0.0;
}

// Sub-pixel offset from the SSD at the minimum and at its -x, +x, -y, +y
// neighbours (NO_SSD where a neighbour is outside the search window).
vec2 subpixel(uint c0, uint xm, uint xp, uint ym, uint yp) {
    vec2 sub = vec2(0.0);
    if (xm != NO_SSD && xp != NO_SSD) sub.x = parabola(xm, c0, xp);
    if (ym != NO_SSD && yp != NO_SSD) sub.y = parabola(ym, c0, yp);
    return sub;
}

// The 3x3 neighbourhood of the parent block, own parent first (wins ties).
const ivec2 PRED_OFFSETS[9] = ivec2[9](ivec2(0, 0), ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1),
    ivec2(0, 1), ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));
