#include "backends/neural/load.h"

#include <utility>

#include "backends/neural/windowed_vocoder.h"

namespace svc {

std::shared_ptr<NeuralModel> LoadNeuralModel(const NeuralModelSpec& spec) {
  if (spec.type == NeuralModelSpec::Type::Kokoro)
    return std::make_shared<KokoroModel>(LoadOnnxSession(spec.session), spec.kokoro);
  std::string why = "not asked for (windowedVocoder: false)";
  std::unique_ptr<WindowedVocoder> vocoder;
  if (spec.piper.windowedVocoder) vocoder = WindowedVocoder::Open(spec.session, PiperVoice::kVocoderBoundary, why);
  if (vocoder) return std::make_shared<PiperVoice>(std::move(vocoder), spec.piper);
  return std::make_shared<PiperVoice>(LoadOnnxSession(spec.session), spec.piper, why);
}

}  // namespace svc
