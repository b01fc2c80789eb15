// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "GallerySync",
    products: [
        .library(name: "GalleryModel", targets: ["GalleryModel"]),
        .library(name: "GalleryWire", targets: ["GalleryWire"]),
        .library(name: "GalleryNode", targets: ["GalleryNode"]),
        .executable(name: "gallery", targets: ["gallery"]),
        .executable(name: "gallery-bench", targets: ["gallery-bench"]),
    ],
    dependencies: [],
    targets: [
        .target(name: "GalleryModel"),
        // SHA-256 block compression with the CPU's SHA instructions (C: Swift cannot emit them).
        .target(name: "CSHA256Kernels"),
        .target(name: "GalleryWire", dependencies: ["GalleryModel", "CSHA256Kernels"]),
        // epoll for the event loops (the Glibc module does not export it).
        .target(name: "CEventPoll"),
        .target(name: "GalleryNode", dependencies: ["GalleryModel", "GalleryWire", "CEventPoll"]),
        .executableTarget(name: "gallery", dependencies: ["GalleryModel", "GalleryNode"]),
        .executableTarget(name: "gallery-bench", dependencies: ["GalleryModel", "GalleryWire", "GalleryNode"]),
        .testTarget(name: "GalleryModelTests", dependencies: ["GalleryModel"]),
        .testTarget(name: "GalleryWireTests", dependencies: ["GalleryModel", "GalleryWire"]),
        .testTarget(name: "GalleryNodeTests", dependencies: ["GalleryNode"]),
        .testTarget(name: "EndToEndTests", dependencies: ["gallery", "gallery-bench", "GalleryModel", "GalleryNode", "GalleryWire"]),
    ],
    swiftLanguageModes: [.v6]
)
