// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "GallerySync",
    products: [
        .library(name: "GalleryModel", targets: ["GalleryModel"]),
        .library(name: "GalleryCrypto", targets: ["GalleryCrypto"]),
        .library(name: "GalleryWire", targets: ["GalleryWire"]),
        .library(name: "GalleryNode", targets: ["GalleryNode"]),
        .library(name: "GalleryHTTP", targets: ["GalleryHTTP"]),
        .executable(name: "gallery", targets: ["gallery"]),
        .executable(name: "gallery-bench", targets: ["gallery-bench"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "GalleryModel"),
        // SHA-256 block compression with the CPU's SHA instructions (C: Swift cannot emit them).
        .target(name: "CSHA256Kernels"),
        // Hashes, checksums, MACs, X25519, ChaCha20-Poly1305, HKDF and the Noise handshake: nothing of ours above it.
        .target(name: "GalleryCrypto", dependencies: ["CSHA256Kernels"]),
        .target(name: "GalleryWire", dependencies: ["GalleryModel", "GalleryCrypto"]),
        .target(name: "GalleryNode", dependencies: ["GalleryModel", "GalleryCrypto", "GalleryWire"]),
        // Sans-I/O HTTP/1.1 codec for the web adapter (issue 13).
        .target(name: "GalleryHTTP"),
        // Test-only helpers: a headless-Chromium driver over the DevTools protocol.
        .target(name: "GalleryTestSupport"),
        .executableTarget(name: "gallery", dependencies: ["GalleryModel", "GalleryNode"]),
        .executableTarget(name: "gallery-bench", dependencies: ["GalleryModel", "GalleryCrypto", "GalleryWire", "GalleryNode"]),
        .testTarget(name: "GalleryModelTests", dependencies: ["GalleryModel"]),
        .testTarget(name: "GalleryCryptoTests", dependencies: ["GalleryModel", "GalleryCrypto"]),
        .testTarget(name: "GalleryWireTests", dependencies: ["GalleryModel", "GalleryCrypto", "GalleryWire"]),
        .testTarget(name: "GalleryNodeTests", dependencies: ["GalleryCrypto", "GalleryNode"]),
        .testTarget(name: "GalleryHTTPTests", dependencies: ["GalleryHTTP", "GalleryModel"]),
        .testTarget(name: "BrowserTests", dependencies: ["GalleryCrypto", "GalleryHTTP", "GalleryNode", "GalleryTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["gallery", "gallery-bench", "GalleryModel", "GalleryCrypto", "GalleryNode", "GalleryWire"]),
    ],
    swiftLanguageModes: [.v6]
)
