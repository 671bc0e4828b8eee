#version 450
// Test module for binding renumbering: five storage buffers at the sparse
// binding numbers FSR3's shaders use. Each invocation writes 1000 + its
// buffer's original binding number into that buffer, so a buffer bound at
// the wrong renumbered slot ends up with another buffer's number.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0, std430) buffer B0 { uint v; } b0;
layout(set = 0, binding = 100, std430) buffer B100 { uint v; } b100;
layout(set = 0, binding = 200, std430) buffer B200 { uint v; } b200;
layout(set = 0, binding = 300, std430) buffer B300 { uint v; } b300;
layout(set = 0, binding = 405, std430) buffer B405 { uint v; } b405;
void main() {
    b0.v = 1000u;
    b100.v = 1100u;
    b200.v = 1200u;
    b300.v = 1300u;
    b405.v = 1405u;
}
