// Shared by every pass of the interpolator: binding numbers, push constants,
// and small helpers.
//
// Binding numbers name resources, not slots: they are sparse on purpose. At
// load, framegen renumbers every pass's bindings 0..n-1 (src/spirv.rs) and
// builds its set layout and descriptor writes from that table; the Rust side
// refers to a resource by the number here (src/shaders.rs, `Res`, which a test
// checks against this file).

#extension GL_EXT_control_flow_attributes : require

#define B_FRAME_A      0   // sampler2D: the previous game frame (frame format, sampled)
#define B_FRAME_B      1   // sampler2D: the current game frame
#define B_LUMA_A      10   // sampler2D: luma pyramid of the previous frame (all levels)
#define B_LUMA_B      11   // sampler2D: luma pyramid of the current frame
#define B_LUMA_OUT    20   // image2D r8 [MAX_LEVELS]: the pyramid being written, one per level
#define B_LUMA_LEVEL  21   // image2D r8: one level of the pyramid being written
#define B_HIST        30   // buffer: per-region luma histograms of both frames
#define B_STATE       31   // buffer: scene-change result of this frame
#define B_READBACK    32   // buffer (host visible): results read back frames later
#define B_FLOW_COARSE 40   // iimage2D rg16i [2]: flow of the next coarser level (fwd, bwd)
#define B_FLOW_OUT    41   // iimage2D rg16i [2]: flow being written at this level (fwd, bwd)
#define B_FLOW        42   // isampler2D [2]: the final flow (fwd, bwd), read by texelFetch
#define B_MOTION      50   // rgba16i: per-block motion chosen for time t (written as an
                           // image, read as an isampler2D)
#define B_STILL       60   // image2D r8: still-region history, per pixel
#define B_STILL_REF   61   // image2D r8: the reference interpolation's history (=2)
#define B_OUTPUT      70   // image2D rgba8: the generated frame
#define B_OUTPUT_REF  71   // image2D rgba8: the reference interpolation's frame (=2)

#define MAX_LEVELS 7
#define BLOCK 8            // flow block size, in pixels of its level
#define SUBPX 8.0          // flow vectors are stored in 1/8 pixel of their level

// Scene-change histograms.
#define HIST_BINS 64
#define HIST_REGIONS 9     // 3x3 screen sections
#define HIST_LEVEL 2       // built from this pyramid level

// Readback buffer layout (uints): [0 .. READBACK_SLOTS) scene results, then
// the reference-check mismatch counter.
#define READBACK_SLOTS 8
#define READBACK_MISMATCH READBACK_SLOTS

layout(push_constant) uniform Push {
    ivec2 size;      // frame size in pixels (level 0)
    int level;       // pyramid / flow level this dispatch works on
    int levels;      // levels in the pyramid
    float t;         // time of the generated frame, 0 = previous, 1 = current
    uint flags;      // FLAG_* below
    uint serial;     // frame serial (for readback)
    int radius;      // block-search radius at this level
    uint cur;        // histogram slot of the current frame (0 or 1)
    int mblock;      // interpolation: side of the motion blocks in pixels (8 or 16)
} pc;

#define FLAG_WRITE_HISTORY 1u   // this interpolation keeps the still history
#define FLAG_COARSEST      2u   // flow: no coarser level to start from
#define FLAG_WIDE          4u   // interpolation: 3x3 blocks of candidates, not 2x2

// Size of pyramid level `l` (Vulkan mip sizes).
ivec2 level_size(int l) {
    return max(pc.size >> l, ivec2(1));
}

// Luma of an 8-bit RGB colour, in integer units 0..255. Works on the values
// read from the frame, so RGBA and BGRA frames give the same luma.
uint luma8(vec4 c) {
    uvec3 u = uvec3(c.rgb * 255.0 + 0.5);
    return (77u * u.r + 150u * u.g + 29u * u.b + 128u) >> 8;
}

// Reads an r8 texel as an integer 0..255.
uint texel8(sampler2D s, ivec2 p, int l) {
    return uint(texelFetch(s, p, l).r * 255.0 + 0.5);
}
