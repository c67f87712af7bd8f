#!/usr/bin/env python3
"""Generates the neural fixture models under test/fixtures/neural/ (committed; CI does not rerun this).

Tiny ONNX graphs with exactly the interfaces of a Piper voice and a Kokoro model (MODELS.md §5):
the same input and output names, dtypes and ranks, and config files in the real layout. Their audio
is a deterministic function of every input: each phoneme id lasts its own number of frames
(scaled by length_scale or speed) and sounds at its own pitch and loudness, shifted by the speaker
and the style row, so a wrong id map, scale order, speaker or style row changes the samples.

Run with Debian's python3-onnx:  PYENV_VERSION=system python3 scripts/make-neural-fixtures.py
"""
import json
import math
import os
import subprocess
import sys
import tarfile
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'fixtures', 'neural')
OPSET = 13

# Piper's standard phoneme_id_map (piper-phonemize): pad, BOS, EOS, space, punctuation, IPA letters.
PIPER_SYMBOLS = (
    ['_', '^', '$', ' ', '!', "'", '(', ')', ',', '-', '.', ':', ';', '?']
    + list('abcdefghijklmnopqrstuvwxyz')
    + list('æçðøħŋœǀǁǂǃɐɑɒɓɔɕɖɗɘəɚɛɜɞɟɠɡɢɣɤɥɦɧɨɪɫɬɭɮɯɰɱɲɳɴɵɶɸɹɺɻɽɾʀʁʂʃʄʈʉʊʋʌʍʎʏʐʑʒʔʕʘʙʛʜʝʟʡʢʲˈˌːˑ˞βθχᵻⱱ')
    + ['\u0303', '\u0327', '\u0329', '\u032a', '\u032f', '\u0361', '\u02b0', '\u02b7']
)


def tables(num_symbols, seed):
    """Per-id frames (1..3), pitch (Hz) and loudness, fixed by the seed."""
    rng = np.random.default_rng(seed)
    frames = rng.integers(1, 4, num_symbols).astype(np.float32)
    pitch = (90.0 + 9.0 * np.arange(num_symbols) % 400).astype(np.float32)
    loudness = rng.uniform(0.2, 0.8, num_symbols).astype(np.float32)
    return frames, pitch, loudness


def const(name, value, dtype=np.float32):
    return numpy_helper.from_array(np.asarray(value, dtype=dtype), name)


def expand_by_frames(nodes, inits, ids, frames, samples_per_frame, prefix):
    """Nodes giving t (sample index, float [S]) and the id sounding at each sample (int64 [S])."""
    inits += [const(prefix + 'spf', samples_per_frame), const(prefix + 'zero', 0, np.int64),
              const(prefix + 'one', 1, np.int64), const(prefix + 'ax0', [0], np.int64), const(prefix + 'ax1', [1], np.int64),
              const(prefix + 'cumaxis', 0, np.int64)]
    p = prefix
    nodes += [
        helper.make_node('CumSum', [frames, p + 'cumaxis'], [p + 'ends']),
        helper.make_node('ReduceSum', [frames], [p + 'total'], keepdims=0),
        helper.make_node('Mul', [p + 'total', p + 'spf'], [p + 'total_samples']),
        helper.make_node('Round', [p + 'total_samples'], [p + 'total_rounded']),
        helper.make_node('Cast', [p + 'total_rounded'], [p + 'S'], to=TensorProto.INT64),
        helper.make_node('Range', [p + 'zero', p + 'S', p + 'one'], [p + 't_int']),
        helper.make_node('Cast', [p + 't_int'], [p + 't'], to=TensorProto.FLOAT),
        helper.make_node('Div', [p + 't', p + 'spf'], [p + 'frame']),
        helper.make_node('Unsqueeze', [p + 'frame', p + 'ax1'], [p + 'frame_col']),
        helper.make_node('Unsqueeze', [p + 'ends', p + 'ax0'], [p + 'ends_row']),
        helper.make_node('GreaterOrEqual', [p + 'frame_col', p + 'ends_row'], [p + 'passed']),
        helper.make_node('Cast', [p + 'passed'], [p + 'passed_f'], to=TensorProto.FLOAT),
        helper.make_node('ReduceSum', [p + 'passed_f', p + 'ax1'], [p + 'index_f'], keepdims=0),
        helper.make_node('Cast', [p + 'index_f'], [p + 'index'], to=TensorProto.INT64),
        helper.make_node('Gather', [ids, p + 'index'], [p + 'token']),
    ]
    return p + 't', p + 'token'


def tone(nodes, inits, t, token, pitch, loudness, sample_rate, pitch_shift, offset, out):
    """out = tanh(loudness[token] * sin(2π (pitch[token] + pitch_shift) t / rate) + offset)"""
    inits += [const('pitch_table', pitch), const('loudness_table', loudness), const('two_pi_over_rate', 2 * math.pi / sample_rate)]
    nodes += [
        helper.make_node('Gather', ['pitch_table', token], ['hz_base']),
        helper.make_node('Add', ['hz_base', pitch_shift], ['hz']),
        helper.make_node('Gather', ['loudness_table', token], ['amp']),
        helper.make_node('Mul', ['hz', t], ['cycles']),
        helper.make_node('Mul', ['cycles', 'two_pi_over_rate'], ['phase']),
        helper.make_node('Sin', ['phase'], ['wave']),
        helper.make_node('Mul', ['amp', 'wave'], ['voiced']),
        helper.make_node('Add', ['voiced', offset], ['biased']),
        helper.make_node('Tanh', ['biased'], [out]),
    ]


def save(graph, path, metadata, opset=OPSET):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', opset)], producer_name='svc-tts fixtures')
    model.ir_version = 7
    for key, value in metadata.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, str(value)
    onnx.checker.check_model(model)
    onnx.save(model, path)


def piper_inputs():
    return [
        helper.make_tensor_value_info('input', TensorProto.INT64, [1, 'phonemes']),
        helper.make_tensor_value_info('input_lengths', TensorProto.INT64, [1]),
        helper.make_tensor_value_info('scales', TensorProto.FLOAT, [3]),
    ]


def piper(name, speakers, with_alignment, sample_rate=22050):
    num_symbols = 256
    frames, pitch, loudness = tables(num_symbols, seed=len(name))
    nodes, inits = [], [const('frames_table', frames), const('ax_batch', [0], np.int64), const('i0', 0, np.int64),
                        const('i1', 1, np.int64), const('i2', 2, np.int64), const('hop', 256.0),
                        const('out_shape', [1, 1, 1, -1], np.int64), const('dur_shape', [1, 1, -1], np.int64),
                        const('noise_weight', 0.1), const('noise_w_weight', 0.01)]
    nodes += [
        helper.make_node('Squeeze', ['input', 'ax_batch'], ['ids']),
        helper.make_node('Gather', ['scales', 'i0'], ['noise_scale']),
        helper.make_node('Gather', ['scales', 'i1'], ['length_scale']),
        helper.make_node('Gather', ['scales', 'i2'], ['noise_w']),
        helper.make_node('Gather', ['frames_table', 'ids'], ['base_frames']),
        helper.make_node('Mul', ['base_frames', 'length_scale'], ['scaled_frames']),
        helper.make_node('Ceil', ['scaled_frames'], ['w_ceil']),
    ]
    t, token = expand_by_frames(nodes, inits, 'ids', 'w_ceil', 256.0, 'x_')
    # Loudness follows noise_scale, the offset noise_w and the speaker: each input moves the samples.
    nodes += [
        helper.make_node('Mul', ['noise_scale', 'noise_weight'], ['noise_term']),
        helper.make_node('Mul', ['noise_w', 'noise_w_weight'], ['noise_w_term']),
    ]
    inputs = piper_inputs()
    shift = 'noise_term'
    if speakers:
        inputs.append(helper.make_tensor_value_info('sid', TensorProto.INT64, [1]))
        inits += [const('speaker_hz', 40.0)]
        nodes += [
            helper.make_node('Cast', ['sid'], ['sid_f'], to=TensorProto.FLOAT),
            helper.make_node('Mul', ['sid_f', 'speaker_hz'], ['speaker_shift_1']),
            helper.make_node('Add', ['speaker_shift_1', 'noise_term'], ['speaker_shift']),
        ]
        shift = 'speaker_shift'
    tone(nodes, inits, t, token, pitch, loudness, sample_rate, shift, 'noise_w_term', 'samples')
    nodes.append(helper.make_node('Reshape', ['samples', 'out_shape'], ['output']))
    outputs = [helper.make_tensor_value_info('output', TensorProto.FLOAT, [1, 1, 1, 'time'])]
    if with_alignment:
        nodes.append(helper.make_node('Reshape', ['w_ceil', 'dur_shape'], ['/dp/Ceil_output_0']))
        outputs.append(helper.make_tensor_value_info('/dp/Ceil_output_0', TensorProto.FLOAT, [1, 1, 'phonemes']))
    save_piper(helper.make_graph(nodes, name, inputs, outputs, inits), name, speakers, sample_rate, num_symbols)


def piper_vits(name, speakers, normalised=False):
    """A Piper voice shaped like VITS where windows matter: per-frame latent channels from the ids
    (scaled by noise_scale), then a vocoder of convolutions whose first node carries the name
    official exports give it (/dec/conv_pre/Conv), upsampling 16 x 16 = 256 samples a frame; the
    speaker conditions the vocoder, as Piper's multi-speaker voices do. `normalised`: the vocoder
    also subtracts its mean over time, so no window of it gives the whole run's samples."""
    num_symbols, channels, hidden = 256, 4, 8
    rng = np.random.default_rng(len(name))
    frames, _, _ = tables(num_symbols, seed=len(name))

    def weight(n, *shape):
        fan_in = shape[1] * shape[2] if len(shape) == 3 else 1
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) / math.sqrt(fan_in)).astype(np.float32), n))
        return n

    nodes, inits = [], [const('frames_table', frames), const('ax_batch', [0], np.int64), const('i0', 0, np.int64),
                        const('i1', 1, np.int64), const('out_shape', [1, 1, 1, -1], np.int64),
                        const('dur_shape', [1, 1, -1], np.int64)]
    weight('emb', num_symbols, channels)
    nodes += [
        helper.make_node('Squeeze', ['input', 'ax_batch'], ['ids']),
        helper.make_node('Gather', ['scales', 'i0'], ['noise_scale']),
        helper.make_node('Gather', ['scales', 'i1'], ['length_scale']),
        helper.make_node('Gather', ['frames_table', 'ids'], ['base_frames']),
        helper.make_node('Mul', ['base_frames', 'length_scale'], ['scaled_frames']),
        helper.make_node('Ceil', ['scaled_frames'], ['w_ceil']),
    ]
    _, token = expand_by_frames(nodes, inits, 'ids', 'w_ceil', 1.0, 'f_')
    nodes += [
        helper.make_node('Gather', ['emb', token], ['frame_emb']),  # [F, C]
        helper.make_node('Transpose', ['frame_emb'], ['frame_cf'], perm=[1, 0]),
        helper.make_node('Unsqueeze', ['frame_cf', 'ax_batch'], ['latent']),
        helper.make_node('Mul', ['latent', 'noise_scale'], ['/Mul_7_output_0']),  # [1, C, F]
        helper.make_node('Conv', ['/Mul_7_output_0', weight('pre_w', hidden, channels, 7)], ['/dec/conv_pre/Conv_output_0'],
                         name='/dec/conv_pre/Conv', pads=[3, 3], kernel_shape=[7]),
    ]
    inputs = piper_inputs()
    x = '/dec/conv_pre/Conv_output_0'
    if speakers:
        inputs.append(helper.make_tensor_value_info('sid', TensorProto.INT64, [1]))
        weight('speaker_emb', len(speakers), hidden, 1)
        nodes += [helper.make_node('Gather', ['speaker_emb', 'sid'], ['g']),  # [1, hidden, 1]
                  helper.make_node('Add', [x, 'g'], ['/dec/Add_output_0'])]
        x = '/dec/Add_output_0'
    if normalised:
        nodes += [helper.make_node('ReduceMean', [x], ['/dec/mean'], axes=[2]),
                  helper.make_node('Sub', [x, '/dec/mean'], ['/dec/centred'])]
        x = '/dec/centred'
    nodes += [
        helper.make_node('LeakyRelu', [x], ['a0'], alpha=0.1),
        helper.make_node('ConvTranspose', ['a0', weight('up0_w', hidden, 4, 32)], ['u0'], strides=[16], pads=[8, 8], kernel_shape=[32]),
        helper.make_node('LeakyRelu', ['u0'], ['a1'], alpha=0.1),
        helper.make_node('Conv', ['a1', weight('res_w', 4, 4, 7)], ['r0'], dilations=[3], pads=[9, 9], kernel_shape=[7]),
        helper.make_node('Add', ['u0', 'r0'], ['u0r']),
        helper.make_node('LeakyRelu', ['u0r'], ['a2'], alpha=0.1),
        helper.make_node('ConvTranspose', ['a2', weight('up1_w', 4, 1, 32)], ['u1'], strides=[16], pads=[8, 8], kernel_shape=[32]),
        helper.make_node('Tanh', ['u1'], ['wave']),
        helper.make_node('Reshape', ['wave', 'out_shape'], ['output']),
        helper.make_node('Reshape', ['w_ceil', 'dur_shape'], ['/dp/Ceil_output_0']),
    ]
    outputs = [helper.make_tensor_value_info('output', TensorProto.FLOAT, [1, 1, 1, 'time']),
               helper.make_tensor_value_info('/dp/Ceil_output_0', TensorProto.FLOAT, [1, 1, 'phonemes'])]
    save_piper(helper.make_graph(nodes, name, inputs, outputs, inits), name, speakers, 22050, num_symbols)


def piper_convs(name):
    """A Piper voice whose vocoder has each form of 1-D convolution the engine runs as 2-D
    (native/onnx/conv_lift.cc), and two it must leave alone, at opset 11, where Squeeze and
    Unsqueeze take their axes as an attribute. Lifted: no bias and the kernel known only from the
    weight's rank; auto_pad; groups with dilation, reading the same tensor as the one before; a
    weight computed in the graph; transposed convolutions, one with output padding. Left: a computed
    weight without kernel_shape (its rank is unknown), and a true 2-D convolution. One frame per
    phoneme id, 256 samples a frame."""
    num_symbols, channels = 256, 4
    rng = np.random.default_rng(len(name))

    def weight(n, *shape):
        fan_in = shape[1] * shape[-1] if len(shape) > 1 else 1
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) / math.sqrt(fan_in)).astype(np.float32), n))
        return n

    nodes, inits = [], [const('i0', 0, np.int64), const('out_shape', [1, 1, 1, -1], np.int64), const('w_gain', 0.9)]
    weight('emb', num_symbols, channels)
    nodes += [
        helper.make_node('Squeeze', ['input'], ['ids'], axes=[0]),
        helper.make_node('Gather', ['scales', 'i0'], ['noise_scale']),
        helper.make_node('Gather', ['emb', 'ids'], ['frame_emb']),  # [F, C]
        helper.make_node('Transpose', ['frame_emb'], ['frame_cf'], perm=[1, 0]),
        helper.make_node('Unsqueeze', ['frame_cf'], ['latent'], axes=[0]),
        helper.make_node('Mul', ['latent', 'noise_scale'], ['x']),  # [1, C, F]
        helper.make_node('Conv', ['x', weight('w_rank', channels, channels, 3)], ['c0'], pads=[1, 1]),
        helper.make_node('Conv', ['c0', weight('w_same', channels, channels, 4), weight('b_same', channels)], ['c1'],
                         auto_pad='SAME_UPPER', kernel_shape=[4]),
        helper.make_node('Conv', ['c0', weight('w_group', channels, 2, 3), weight('b_group', channels)], ['c2'],
                         group=2, dilations=[2], pads=[2, 2], kernel_shape=[3]),
        helper.make_node('Add', ['c1', 'c2'], ['s']),
        helper.make_node('Mul', [weight('w_base', channels, channels, 5), 'w_gain'], ['w_made']),
        helper.make_node('Conv', ['s', 'w_made'], ['c3'], pads=[2, 2], strides=[1], kernel_shape=[5]),
        helper.make_node('Mul', [weight('w_base2', channels, channels, 3), 'w_gain'], ['w_made2']),
        helper.make_node('Conv', ['c3', 'w_made2'], ['c4'], pads=[1, 1]),  # not lifted: rank unknown
        helper.make_node('Unsqueeze', ['c4'], ['c4_2d'], axes=[2]),
        helper.make_node('Conv', ['c4_2d', weight('w_2d', channels, channels, 1, 3)], ['c5_2d'], pads=[0, 1, 0, 1], kernel_shape=[1, 3]),
        helper.make_node('Squeeze', ['c5_2d'], ['c5'], axes=[2]),
        helper.make_node('LeakyRelu', ['c5'], ['a5'], alpha=0.1),
        helper.make_node('ConvTranspose', ['a5', weight('w_up0', channels, channels, 32), weight('b_up0', channels)], ['u0'],
                         strides=[16], pads=[8, 8], kernel_shape=[32]),
        helper.make_node('LeakyRelu', ['u0'], ['a6'], alpha=0.1),
        # (16 F - 1) * 16 + 5 + 20 - (2 + 7) = 256 F: output padding helps fill the last frame.
        helper.make_node('ConvTranspose', ['a6', weight('w_up1', channels, 1, 20)], ['u1'],
                         strides=[16], pads=[2, 7], output_padding=[5], kernel_shape=[20]),
        helper.make_node('Tanh', ['u1'], ['wave']),
        helper.make_node('Reshape', ['wave', 'out_shape'], ['output']),
    ]
    outputs = [helper.make_tensor_value_info('output', TensorProto.FLOAT, [1, 1, 1, 'time'])]
    save_piper(helper.make_graph(nodes, name, piper_inputs(), outputs, inits), name, [], 22050, num_symbols, opset=11)


def save_piper(graph, name, speakers, sample_rate, num_symbols, opset=OPSET):
    path = os.path.join(OUT, name + '.onnx')
    n_speakers = max(1, len(speakers))
    save(graph, path, {'sample_rate': sample_rate, 'n_speakers': n_speakers, 'language': 'English', 'voice': 'en-us',
                       'model_type': 'vits', 'comment': 'piper (svc-tts fixture)', 'has_espeak': 1}, opset)
    config = {
        'audio': {'sample_rate': sample_rate, 'quality': 'medium'},
        'espeak': {'voice': 'en-us'},
        'inference': {'noise_scale': 0.667, 'length_scale': 1.0, 'noise_w': 0.8},
        'phoneme_type': 'espeak',
        'phoneme_map': {},
        'phoneme_id_map': {symbol: [index] for index, symbol in enumerate(PIPER_SYMBOLS)},
        'num_symbols': num_symbols,
        'num_speakers': n_speakers,
        'speaker_id_map': {speaker: index for index, speaker in enumerate(speakers)},
        'language': {'code': 'en_US', 'family': 'en', 'region': 'US', 'name_english': 'English'},
        'dataset': name,
        'piper_version': '1.0.0',
    }
    with open(path + '.json', 'w', encoding='utf-8') as f:
        json.dump(config, f, ensure_ascii=False, indent=2)
        f.write('\n')


def kokoro(directory, timestamped, names=('input_ids', 'waveform', 'durations'), speed_type=TensorProto.FLOAT):
    ids_name, audio_name, durations_name = names
    num_symbols = 178
    frames, pitch, loudness = tables(num_symbols, seed=7)
    nodes, inits = [], [const('frames_table', frames), const('ax_batch', [0], np.int64), const('style_shape', [256], np.int64),
                        const('i0', 0, np.int64), const('i128', 128, np.int64), const('style_hz', 50.0), const('style_bias', 0.1)]
    nodes += [
        helper.make_node('Squeeze', [ids_name, 'ax_batch'], ['ids']),
        helper.make_node('Cast', ['speed'], ['speed_f'], to=TensorProto.FLOAT),
        helper.make_node('Gather', ['frames_table', 'ids'], ['base_frames']),
        helper.make_node('Div', ['base_frames', 'speed_f'], ['frames']),
        helper.make_node('Reshape', ['style', 'style_shape'], ['style_flat']),
        helper.make_node('Gather', ['style_flat', 'i0'], ['timbre']),
        helper.make_node('Gather', ['style_flat', 'i128'], ['prosody']),
        helper.make_node('Mul', ['timbre', 'style_hz'], ['style_shift']),
        helper.make_node('Mul', ['prosody', 'style_bias'], ['style_offset']),
    ]
    t, token = expand_by_frames(nodes, inits, 'ids', 'frames', 600.0, 'x_')
    tone(nodes, inits, t, token, pitch, loudness, 24000, 'style_shift', 'style_offset', audio_name)
    outputs = [helper.make_tensor_value_info(audio_name, TensorProto.FLOAT, ['num_samples'])]
    if timestamped:
        nodes.append(helper.make_node('Identity', ['frames'], [durations_name]))
        outputs.append(helper.make_tensor_value_info(durations_name, TensorProto.FLOAT, ['sequence_length']))
    inputs = [
        helper.make_tensor_value_info(ids_name, TensorProto.INT64, [1, 'sequence_length']),
        helper.make_tensor_value_info('style', TensorProto.FLOAT, [1, 256]),
        helper.make_tensor_value_info('speed', speed_type, [1]),
    ]
    graph = helper.make_graph(nodes, 'kokoro-fixture', inputs, outputs, inits)
    os.makedirs(os.path.join(OUT, directory), exist_ok=True)
    save(graph, os.path.join(OUT, directory, 'model.onnx'),
         {'sample_rate': 24000, 'n_speakers': 1, 'has_espeak': 1, 'style_dim': '510,1,256', 'model_type': 'kokoro',
          'voice': 'en-us', 'version': 1})


# Real style files from the kokoro-js npm package (Apache-2.0), in its layout: voices/<name>.bin.
KOKORO_JS = 'kokoro-js@1.2.1'
KOKORO_VOICES = ('af_heart', 'am_michael')


def kokoro_voices():
    target = os.path.join(OUT, 'kokoro', 'voices')
    os.makedirs(target, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tgz = subprocess.run(['npm', 'pack', KOKORO_JS, '--silent'], cwd=tmp, check=True, capture_output=True,
                             text=True).stdout.strip().splitlines()[-1]
        with tarfile.open(os.path.join(tmp, tgz)) as archive:
            for name in KOKORO_VOICES:
                data = archive.extractfile(f'package/voices/{name}.bin').read()
                with open(os.path.join(target, name + '.bin'), 'wb') as f:
                    f.write(data)
    for variant in ('kokoro-timestamped', 'kokoro-int-speed'):  # one copy of the voices, linked
        link = os.path.join(OUT, variant, 'voices')
        if not os.path.islink(link):
            os.symlink('../kokoro/voices', link)


def main():
    os.makedirs(OUT, exist_ok=True)
    piper('en_US-fixture-medium', speakers=[], with_alignment=True)
    piper('en_US-fixturemulti-medium', speakers=['alice', 'bob', 'carol'], with_alignment=False)
    piper_vits('en_US-fixturevits-medium', speakers=['dan', 'eve'])
    piper_vits('en_US-fixturevitsnorm-medium', speakers=[], normalised=True)
    piper_convs('en_US-fixtureconvs-medium')
    kokoro('kokoro', timestamped=False)
    kokoro('kokoro-timestamped', timestamped=True)
    kokoro('kokoro-int-speed', timestamped=True, names=('tokens', 'audio', 'duration'), speed_type=TensorProto.INT32)
    kokoro_voices()


if __name__ == '__main__':
    sys.exit(main())
