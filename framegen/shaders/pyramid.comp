#version 450
// Luma pyramid, fast path: all levels of the current frame in one dispatch.
//
// A workgroup of 256 invocations covers a 64x64 tile of level 0; each
// invocation reads a 4x4 block of the frame. Invocations are laid out in
// Morton order, so a subgroup quad is a 2x2 square of them: level 3 is
// reduced with quad swaps, levels 4..6 through shared memory. Every level is
// the rounded mean of the four integer texels below it, exactly as the
// reference path (luma_ref.comp + downsample_ref.comp) computes it one level
// per dispatch, so the two agree bit for bit.
#extension GL_KHR_shader_subgroup_quad : require
#include "common.glsl"

layout(local_size_x = 256) in;

layout(set = 0, binding = B_FRAME_B) uniform sampler2D u_frame;
layout(set = 0, binding = B_LUMA_OUT, r8) uniform writeonly image2D u_out[MAX_LEVELS];

shared uint s_l3[64];
shared uint s_l4[16];
shared uint s_l5[4];

uint avg4(uint a, uint b, uint c, uint d) { return (a + b + c + d + 2u) >> 2; }

// Stores one texel of level L (a literal: the array index stays constant).
#define PUT(L, P, V) \
    if (L < pc.levels && all(lessThan(P, level_size(L)))) { \
        imageStore(u_out[L], P, vec4(float(V) / 255.0)); \
    }

void main() {
    uint li = gl_LocalInvocationIndex;
    // Morton decode: x from the even bits, y from the odd bits.
    uint mx = (li & 1u) | ((li >> 1u) & 2u) | ((li >> 2u) & 4u) | ((li >> 3u) & 8u);
    uint my = ((li >> 1u) & 1u) | ((li >> 2u) & 2u) | ((li >> 3u) & 4u) | ((li >> 4u) & 8u);
    ivec2 tile = ivec2(gl_WorkGroupID.xy) * 64;
    ivec2 o = tile + ivec2(mx, my) * 4;
    ivec2 lim = pc.size - 1;

    uint l0[16];
    [[unroll]] for (int j = 0; j < 4; j++) {
        [[unroll]] for (int i = 0; i < 4; i++) {
            uint v = luma8(texelFetch(u_frame, min(o + ivec2(i, j), lim), 0));
            l0[j * 4 + i] = v;
            PUT(0, o + ivec2(i, j), v)
        }
    }
    uint l1[4];
    [[unroll]] for (int j = 0; j < 2; j++) {
        [[unroll]] for (int i = 0; i < 2; i++) {
            int b = j * 8 + i * 2;
            uint v = avg4(l0[b], l0[b + 1], l0[b + 4], l0[b + 5]);
            l1[j * 2 + i] = v;
            PUT(1, (o >> 1) + ivec2(i, j), v)
        }
    }
    uint l2 = avg4(l1[0], l1[1], l1[2], l1[3]);
    PUT(2, o >> 2, l2)

    // Level 3: the quad is a 2x2 square of invocations.
    uint h = subgroupQuadSwapHorizontal(l2);
    uint v = subgroupQuadSwapVertical(l2);
    uint d = subgroupQuadSwapDiagonal(l2);
    uint l3 = avg4(l2, h, v, d);
    ivec2 q3 = ivec2(mx, my) >> 1;
    if ((li & 3u) == 0u) {
        PUT(3, (tile >> 3) + q3, l3)
        s_l3[q3.y * 8 + q3.x] = l3;
    }
    barrier();
    if (li < 16u) {
        ivec2 q = ivec2(li & 3u, li >> 2u);
        int b = q.y * 16 + q.x * 2;
        uint v4 = avg4(s_l3[b], s_l3[b + 1], s_l3[b + 8], s_l3[b + 9]);
        s_l4[li] = v4;
        PUT(4, (tile >> 4) + q, v4)
    }
    barrier();
    if (li < 4u) {
        ivec2 q = ivec2(li & 1u, li >> 1u);
        int b = q.y * 8 + q.x * 2;
        uint v5 = avg4(s_l4[b], s_l4[b + 1], s_l4[b + 4], s_l4[b + 5]);
        s_l5[li] = v5;
        PUT(5, (tile >> 5) + q, v5)
    }
    barrier();
    if (li == 0u) {
        PUT(6, tile >> 6, avg4(s_l5[0], s_l5[1], s_l5[2], s_l5[3]))
    }
}
