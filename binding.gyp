# node-gyp builds through CMake (CMakeLists.txt), so both make the same self-contained addon.
{
  "targets": [
    {
      "target_name": "svc_tts",
      "type": "none",
      "actions": [
        {
          "action_name": "cmake_js_compile",
          "inputs": ["CMakeLists.txt"],
          "outputs": ["build/Release/svc_tts.node"],
          "action": ["sh", "-c", "cmake-js compile --out build/cmake && mkdir -p build/Release && cp -R build/cmake/Release/. build/Release/"]
        }
      ]
    }
  ]
}
