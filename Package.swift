// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "GallerySync",
    products: [
        .library(name: "GalleryModel", targets: ["GalleryModel"]),
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
        .target(name: "GalleryWire", dependencies: ["GalleryModel", "CSHA256Kernels"]),
        .target(name: "GalleryNode", dependencies: ["GalleryModel", "GalleryWire"]),
        // Sans-I/O HTTP/1.1 codec for the web adapter (issue 13).
        .target(name: "GalleryHTTP"),
        // Test-only helpers: a headless-Chromium driver over the DevTools protocol.
        .target(name: "GalleryTestSupport"),
        .executableTarget(name: "gallery", dependencies: ["GalleryModel", "GalleryNode"]),
        .executableTarget(name: "gallery-bench", dependencies: ["GalleryModel", "GalleryWire", "GalleryNode"]),
        .testTarget(name: "GalleryModelTests", dependencies: ["GalleryModel"]),
        .testTarget(name: "GalleryWireTests", dependencies: ["GalleryModel", "GalleryWire"]),
        .testTarget(name: "GalleryNodeTests", dependencies: ["GalleryNode"]),
        .testTarget(name: "GalleryHTTPTests", dependencies: ["GalleryHTTP", "GalleryModel"]),
        .testTarget(name: "BrowserTests", dependencies: ["GalleryHTTP", "GalleryNode", "GalleryTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["gallery", "gallery-bench", "GalleryModel", "GalleryNode", "GalleryWire"]),
    ],
    swiftLanguageModes: [.v6]
)
