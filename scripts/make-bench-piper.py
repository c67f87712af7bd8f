#!/usr/bin/env python3
"""Generates a benchmark stand-in for a Piper *medium* voice (MODELS.md, "Compute of a real Piper
voice"): Piper's interface and config, random weights, and about the same work per second of audio.

- per phoneme: a 192-wide embedding, a duration from a table (frames of 256 samples);
- per frame (86/s): 16 gated residual conv layers, 192 channels, kernel 5 (the flow's WN layers);
- the decoder of piper_train's medium preset: conv_pre 192->256 k7, upsampling x8, x8, x4
  (256->128->64->32 channels, transposed kernels 16, 16, 8), after each a residual block of one
  conv per dilation (1, 3) for each kernel 3, 5, 7; conv_post 32->1 k7; tanh.
About 2.5 GMAC per second of 22 050 Hz audio, 70 % in the decoder.

Not committed (about 30 MB): `npm run bench:neural` makes it on demand in bench/.models/.
Usage: PYENV_VERSION=system python3 scripts/make-bench-piper.py OUT.onnx
"""
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(1234)
HIDDEN = 192
FLOW_LAYERS = 16
UPSAMPLE = [(8, 16, 128), (8, 16, 64), (4, 8, 32)]  # rate, kernel, output channels
RES_KERNELS = [3, 5, 7]
RES_DILATIONS = [1, 3]


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, hint):
        self.count += 1
        return f'{hint}_{self.count}'

    def weight(self, shape, scale):
        n = self.name('w')
        self.inits.append(numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), n))
        return n

    def const(self, value, dtype=np.float32):
        n = self.name('c')
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), n))
        return n

    def op(self, kind, inputs, node_name=None, **attrs):
        out = self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, inputs, [out], name=node_name, **attrs))
        return out

    def conv(self, x, cin, cout, k, dilation=1, node_name=None):
        w = self.weight([cout, cin, k], 1.0 / np.sqrt(cin * k))
        b = self.const(np.zeros(cout))
        pad = dilation * (k - 1) // 2
        return self.op('Conv', [x, w, b], node_name, dilations=[dilation], pads=[pad, pad], kernel_shape=[k])

    def up(self, x, cin, cout, rate, k):
        w = self.weight([cin, cout, k], 1.0 / np.sqrt(cin * k))
        b = self.const(np.zeros(cout))
        pad = (k - rate) // 2
        return self.op('ConvTranspose', [x, w, b], strides=[rate], pads=[pad, pad], kernel_shape=[k])


def build(out_path):
    g = Graph()
    num_symbols = 256
    g.inits.append(numpy_helper.from_array((RNG.standard_normal([num_symbols, HIDDEN]) * 0.5).astype(np.float32), 'emb'))
    g.inits.append(numpy_helper.from_array(RNG.integers(2, 6, num_symbols).astype(np.float32), 'dur_table'))
    for n, v, t in [('ax0', [0], np.int64), ('ax1', [1], np.int64), ('i1', 1, np.int64), ('zero', 0, np.int64),
                    ('one', 1, np.int64), ('out_shape', [1, 1, 1, -1], np.int64), ('perm_cf', [1, 0], np.int64)]:
        g.inits.append(numpy_helper.from_array(np.asarray(v, dtype=t), n))
    N = g.nodes
    N += [
        helper.make_node('Squeeze', ['input', 'ax0'], ['ids']),
        helper.make_node('Gather', ['scales', 'i1'], ['length_scale']),
        helper.make_node('Gather', ['dur_table', 'ids'], ['dur']),
        helper.make_node('Mul', ['dur', 'length_scale'], ['dur_scaled']),
        helper.make_node('Ceil', ['dur_scaled'], ['w_ceil']),
        helper.make_node('CumSum', ['w_ceil', 'zero'], ['ends']),
        helper.make_node('ReduceSum', ['w_ceil'], ['frames_f'], keepdims=0),
        helper.make_node('Cast', ['frames_f'], ['frames'], to=TensorProto.INT64),
        helper.make_node('Range', ['zero', 'frames', 'one'], ['frame_int']),
        helper.make_node('Cast', ['frame_int'], ['frame'], to=TensorProto.FLOAT),
        helper.make_node('Unsqueeze', ['frame', 'ax1'], ['frame_col']),
        helper.make_node('Unsqueeze', ['ends', 'ax0'], ['ends_row']),
        helper.make_node('GreaterOrEqual', ['frame_col', 'ends_row'], ['passed']),
        helper.make_node('Cast', ['passed'], ['passed_f'], to=TensorProto.FLOAT),
        helper.make_node('ReduceSum', ['passed_f', 'ax1'], ['index_f'], keepdims=0),
        helper.make_node('Cast', ['index_f'], ['index'], to=TensorProto.INT64),
        helper.make_node('Gather', ['ids', 'index'], ['frame_ids']),
        helper.make_node('Gather', ['emb', 'frame_ids'], ['frame_emb']),   # [F, 192]
        helper.make_node('Transpose', ['frame_emb'], ['frame_cf'], perm=[1, 0]),
        helper.make_node('Unsqueeze', ['frame_cf', 'ax0'], ['x0']),        # [1, 192, F]
    ]
    x = 'x0'
    for _ in range(FLOW_LAYERS):  # WN-style gated residual layers
        h = g.conv(x, HIDDEN, 2 * HIDDEN, 5)
        a, b = g.name('gate_a'), g.name('gate_b')
        N.append(helper.make_node('Split', [h], [a, b], axis=1))
        gated = g.op('Mul', [g.op('Tanh', [a]), g.op('Sigmoid', [b])])
        x = g.op('Add', [x, g.conv(gated, HIDDEN, HIDDEN, 1)])
    x = g.conv(x, HIDDEN, 256, 7, node_name='/dec/conv_pre/Conv')  # named as in official Piper exports
    channels = 256
    for rate, kernel, cout in UPSAMPLE:
        x = g.up(g.op('LeakyRelu', [x], alpha=0.1), channels, cout, rate, kernel)
        channels = cout
        blocks = []
        for k in RES_KERNELS:
            y = x
            for d in RES_DILATIONS:
                y = g.op('Add', [y, g.conv(g.op('LeakyRelu', [y], alpha=0.1), channels, channels, k, d)])
            blocks.append(y)
        x = g.op('Mul', [g.op('Sum', blocks), g.const(1.0 / len(RES_KERNELS))])
    x = g.op('Tanh', [g.conv(g.op('LeakyRelu', [x], alpha=0.01), channels, 1, 7)])
    N.append(helper.make_node('Reshape', [x, 'out_shape'], ['output']))
    inputs = [
        helper.make_tensor_value_info('input', TensorProto.INT64, [1, 'phonemes']),
        helper.make_tensor_value_info('input_lengths', TensorProto.INT64, [1]),
        helper.make_tensor_value_info('scales', TensorProto.FLOAT, [3]),
    ]
    outputs = [helper.make_tensor_value_info('output', TensorProto.FLOAT, [1, 1, 1, 'time'])]
    model = helper.make_model(helper.make_graph(N, 'piper-medium-standin', inputs, outputs, g.inits),
                              opset_imports=[helper.make_opsetid('', 13)], producer_name='svc-tts bench')
    model.ir_version = 7
    for key, value in {'sample_rate': 22050, 'n_speakers': 1, 'language': 'English', 'voice': 'en-us',
                       'model_type': 'vits', 'comment': 'piper (svc-tts benchmark stand-in)', 'has_espeak': 1}.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, str(value)
    onnx.checker.check_model(model)
    onnx.save(model, out_path)

    symbols = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'fixtures', 'neural',
                                          'en_US-fixture-medium.onnx.json'), encoding='utf-8'))['phoneme_id_map']
    config = {
        'audio': {'sample_rate': 22050, 'quality': 'medium'}, 'espeak': {'voice': 'en-us'},
        'inference': {'noise_scale': 0.667, 'length_scale': 1.0, 'noise_w': 0.8}, 'phoneme_type': 'espeak',
        'phoneme_map': {}, 'phoneme_id_map': symbols, 'num_symbols': num_symbols, 'num_speakers': 1,
        'speaker_id_map': {}, 'dataset': 'piper-medium-standin', 'piper_version': '1.0.0',
    }
    with open(out_path + '.json', 'w', encoding='utf-8') as f:
        json.dump(config, f, ensure_ascii=False, indent=2)
    # sherpa-onnx reads tokens.txt ("symbol id" lines) beside the model.
    with open(os.path.join(os.path.dirname(out_path), 'tokens.txt'), 'w', encoding='utf-8') as f:
        for symbol, ids in symbols.items():
            f.write(f'{symbol} {ids[0]}\n')


if __name__ == '__main__':
    build(sys.argv[1])
