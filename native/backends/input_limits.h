// The longest input each backend survives. Past these, espeak-ng overflows its word buffers and
// aborts the process, or drops a word silently, and flite recurses without bound (issue 7).
#pragma once

#include <string>

#include "backends/backend.h"

namespace svc {

// Refuses (NativeError kInputTooLong) a piece of text or phonemes the backend would crash on or
// drop; `flite`: the piece goes to flite, else to espeak-ng (which also phonemizes for the neural
// backends). `what` names the piece in the message ("plan.chunks[0].pieces[1]").
void CheckPieceFits(const SpeakJob& piece, bool flite, const std::string& what);

}  // namespace svc
