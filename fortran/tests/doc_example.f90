!! The example program of the timer_tree_type documentation, as printed there.
program doc_example
   use timer_tree_type
   implicit none
   call start_timer ('A')
     call start_timer ('B')
     call stop_timer  ('B')
     call start_timer ('C')
       call start_timer ('B')
       call stop_timer  ('B')
     call stop_timer ('C')
   call stop_timer  ('A')
   call start_timer ('B')
     call start_timer ('X')
     call stop_timer  ('X')
     call start_timer ('Y')
     call stop_timer  ('Y')
     call start_timer ('Z')
     call stop_timer  ('Z')
   call stop_timer  ('B')
   call start_timer ('A')
   call stop_timer  ('A')
   call write_timer_tree(unit=6, indent=2)
end program
