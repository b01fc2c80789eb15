// swift-tools-version:6.0
import PackageDescription

/// Linker flags of a release `gallery` on Linux: the Swift runtime and Foundation linked in (their
/// archives in a group, as their members refer to one another), no shared Swift library loaded at start.
let staticRuntimeInRelease: [LinkerSetting] = [
    .unsafeFlags([
        "-static-stdlib",
        "-Xlinker", "--start-group",
        "-lCoreFoundation", "-lFoundation", "-lFoundationEssentials", "-lFoundationInternationalization",
        "-l_FoundationCShims", "-l_FoundationCollections", "-l_FoundationICU",
        "-Xlinker", "--end-group", "-lstdc++",
    ], .when(platforms: [.linux], configuration: .release)),
]

// The modules are the layers: each target lists exactly the modules it imports, and every arrow
// points down (README.md, "Layout"; `.ci/check-layout` holds the lists, the imports and README's
// arrows to each other). GalleryNode never imports GalleryStorage: it asks storage through the
// protocols in GalleryNode/Ports, which GalleryHost conforms the storage types to.
let package = Package(
    name: "GallerySync",
    // Products are what a user outside this package can name: the two programs. No library is
    // offered: nothing outside depends on one (the conformance client in Tests/Conformance is Python
    // and speaks the wire protocol), and a library product would be a promise of a stable API that
    // the modules do not make: their declarations are `package`, so the layers can change shape
    // together in one commit. Tests and gallery-bench reach the modules as targets of this package.
    products: [
        .executable(name: "gallery", targets: ["gallery"]),
        .executable(name: "gallery-bench", targets: ["gallery-bench"]),
    ],
    dependencies: [],
    targets: [
        // The pure CRDT: identities, ops, the replica, the binary op codec.
        .target(name: "GalleryModel"),
        // C header: epoll for the event loops (the Glibc module does not export it).
        .target(name: "CEventPoll"),
        // Schedules and the simulator of `gallery simulate`.
        .target(name: "GallerySimulation", dependencies: ["GalleryModel"]),
        // SHA-256 block compression with the CPU's SHA instructions (C: Swift cannot emit them).
        .target(name: "CSHA256Kernels"),
        // ChaCha20's keystream (eight blocks at a time) and Poly1305's block loop (four) with AVX2
        // (C: Swift has no 256-bit vectors on x86-64).
        .target(name: "CChaChaPolyKernels"),
        // Hashes, checksums, MACs, X25519, ChaCha20-Poly1305, HKDF and the Noise handshake: nothing of ours above it.
        .target(name: "GalleryCrypto", dependencies: ["CSHA256Kernels", "CChaChaPolyKernels"]),
        // The wire protocol, sans I/O: frames, messages, handshakes, typed control commands.
        .target(name: "GalleryWire", dependencies: ["GalleryModel", "GalleryCrypto"]),
        // Bytes only: sockets, endpoints, stream pairs, channels, event loops; imports no Gallery module.
        .target(name: "GalleryIO", dependencies: ["CEventPoll"]),
        // The node's directory: op log, snapshot, blob store, checkpoints, transfer journal.
        .target(name: "GalleryStorage", dependencies: ["GalleryModel", "GalleryCrypto", "GalleryIO"]),
        // Image codecs for thumbnails, sans I/O: JPEG (scaled decoding, baseline encoding), PNG with
        // our own inflate, GIF's first frame, EXIF orientation, downscaling; only CRC-32 from GalleryCrypto.
        .target(name: "GalleryImaging", dependencies: ["GalleryCrypto"]),
        // The node core: event loops and handler pipelines, sync sessions, relay, transfers, use
        // cases; no storage types.
        .target(name: "GalleryNode", dependencies: ["GalleryModel", "GalleryCrypto", "GalleryWire", "GalleryIO", "GalleryImaging"]),
        // The adapter of `gallery -C DIR`: control socket, commands, client.
        .target(name: "GalleryControl", dependencies: ["GalleryModel", "GalleryCrypto", "GalleryWire", "GalleryIO", "GalleryNode"]),
        // Sans-I/O HTTP/1.1 codec for the web adapter; it imports no Gallery module.
        .target(name: "GalleryHTTP"),
        // The web adapter (http-api.md): HTTP/1.1 on the node's event loops, the page, the JSON API
        // over the node's commands and use cases (those of GalleryControl too), blobs, uploads, live
        // events. The page's files are embedded in the binary (`PackageResources`), no bundle beside it.
        .target(name: "GalleryWeb", dependencies: [
            "GalleryModel", "GalleryCrypto", "GalleryWire", "GalleryIO", "GalleryNode", "GalleryControl", "GalleryHTTP",
        ], resources: [
            .embedInCode("Page/index.html"), .embedInCode("Page/app.css"), .embedInCode("Page/core.js"),
            .embedInCode("Page/grid.js"), .embedInCode("Page/live.js"), .embedInCode("Page/drag.js"),
            .embedInCode("Page/undo.js"), .embedInCode("Page/trash.js"),
            .embedInCode("Page/view.js"), .embedInCode("Page/selection.js"), .embedInCode("Page/offline.js"),
            .embedInCode("Page/access.js"), .embedInCode("Page/touch.js"), .embedInCode("Page/phone.js"),
            .embedInCode("Page/viewer.js"), .embedInCode("Page/qr.js"), .embedInCode("Page/members.js"),
        ]),
        // Composition: a node on its directory, with storage, the control socket and the web adapter.
        .target(name: "GalleryHost", dependencies: [
            "GalleryModel", "GalleryCrypto", "GalleryWire", "GalleryIO", "GalleryStorage", "GalleryNode", "GalleryControl", "GalleryWeb",
        ]),
        // The release `gallery` links the Swift runtime and Foundation statically: a script runs one
        // process per command, and loading and relocating the shared Foundation and ICU libraries
        // was two thirds of each command's CPU (BENCHMARKS.md, "The command line's start-up").
        .executableTarget(name: "gallery", dependencies: [
            "GalleryModel", "GallerySimulation", "GalleryWire", "GalleryIO", "GalleryStorage", "GalleryNode", "GalleryControl",
            "GalleryHost",
        ], linkerSettings: staticRuntimeInRelease),
        // Hundreds of real nodes in one process on a seeded scheduler and a simulated network
        // (a deterministic stand-in for the network and the clock): for tests and gallery-bench only,
        // never in `gallery`.
        .target(name: "GalleryMeshSimulation", dependencies: ["GalleryModel", "GalleryCrypto", "GallerySimulation", "GalleryIO", "GalleryNode", "GalleryWire"]),
        // Shared by tests and benchmarks: spawning `gallery` and the bench's children, storage
        // fixtures, and a headless-Chromium driver over the DevTools protocol.
        .target(name: "GalleryTestSupport", dependencies: ["GalleryModel", "GallerySimulation", "GalleryCrypto", "GalleryWire", "GalleryIO"]),
        .executableTarget(name: "gallery-bench", dependencies: [
            "GalleryModel", "GallerySimulation", "GalleryCrypto", "GalleryWire", "GalleryIO", "GalleryStorage", "GalleryNode",
            "GalleryControl", "GalleryHost", "GalleryTestSupport", "GalleryMeshSimulation", "GalleryImaging",
        ]),
        .testTarget(name: "GalleryMeshSimulationTests", dependencies: ["GalleryMeshSimulation", "GalleryModel", "GalleryNode", "GalleryWire"]),
        .testTarget(name: "GalleryModelTests", dependencies: ["GalleryModel", "GallerySimulation"]),
        .testTarget(name: "GalleryCryptoTests", dependencies: ["GallerySimulation", "GalleryCrypto"]),
        .testTarget(name: "GalleryWireTests", dependencies: ["GalleryModel", "GallerySimulation", "GalleryCrypto", "GalleryWire"]),
        .testTarget(name: "GalleryIOTests", dependencies: ["GalleryIO"]),
        // Fixtures are read from #filePath at test time, not bundled as resources.
        .testTarget(name: "GalleryImagingTests", dependencies: ["GalleryImaging", "GalleryCrypto", "GalleryTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "GalleryStorageTests", dependencies: [
            "GalleryModel", "GallerySimulation", "GalleryCrypto", "GalleryIO", "GalleryStorage", "GalleryTestSupport",
        ]),
        // Node suites that need a host (storage, control socket) are here too: they run serialized
        // with the other node suites (NodeSuites).
        .testTarget(name: "GalleryNodeTests", dependencies: [
            "GalleryModel", "GallerySimulation", "GalleryCrypto", "GalleryWire", "GalleryIO", "GalleryStorage", "GalleryNode",
            "GalleryControl", "GalleryHost", "GalleryTestSupport", "GalleryWeb", "GalleryImaging",
        ]),
        .testTarget(name: "GalleryHTTPTests", dependencies: ["GalleryHTTP", "GallerySimulation"]),
        .testTarget(name: "BrowserTests", dependencies: ["gallery", "GalleryCrypto", "GalleryHTTP", "GalleryIO", "GalleryImaging", "GalleryWeb", "GalleryTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: [
            "gallery", "gallery-bench", "GalleryModel", "GallerySimulation", "GalleryCrypto", "GalleryWire", "GalleryIO",
            "GalleryNode", "GalleryControl", "GalleryImaging", "GalleryTestSupport",
        ]),
    ],
    swiftLanguageModes: [.v6]
)
