-- Version 14 is being written on another branch; this file holds its
-- number so that 0015 applies in order here, and gives way to it.
SELECT 1;
