//! SKELETON: link models (see helper task).
