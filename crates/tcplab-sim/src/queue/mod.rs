//! SKELETON: queue disciplines.
